// The explorer without a mouse and on small screens, in headless Chromium:
// a keyboard-only session, the focus order, a label on every control, text
// contrast, no horizontal scroll from 360 px up (dialog open included), and
// screenshots at 1280x800 and 390x844 in target/explorer/ (not committed).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ARTIFACTS, SAMPLES, closeDetail, launchExplorer, openExplorer, settle, titles, typeQuery } from './explorer-helpers.mjs';

let env;
before(async () => {
  env = await launchExplorer();
});
after(() => env?.close());

/** A short description of the focused element. */
const focused = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    const inDialog = Boolean(el?.closest('dialog'));
    const desc = el?.id ? `#${el.id}` : el?.name ? `[name=${el.name}]` : `${el?.tagName.toLowerCase()}:${el?.textContent.trim().slice(0, 40)}`;
    return { desc, inDialog, form: el?.form?.id ?? null };
  });

async function tabUntil(page, pred, max = 80) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    if (pred(f)) return f;
  }
  throw new Error('focus never reached the element');
}

test('keyboard only: search, move to a result, open it, read why, edit it, close, switch mode, add a memory', async () => {
  const page = await openExplorer(env);
  assert.equal((await focused(page)).desc, '#q', 'the search box has focus on load');
  await page.keyboard.type('deploy friday', { delay: 20 });
  await page.waitForFunction(() => document.querySelector('#q').value === 'deploy friday');
  await settle(page);
  await page.keyboard.press('ArrowDown');
  assert.equal((await focused(page)).desc, 'button:Never deploy on Fridays');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  assert.equal((await focused(page)).desc, 'button:Never deploy on Fridays');

  await page.keyboard.press('Enter');
  await page.locator('#detail').waitFor({ state: 'visible' });
  assert.deepEqual(await focused(page), { desc: '#detail-title', inDialog: true, form: null });
  assert.match(await page.textContent('#explain-h'), /^Why #1 for “deploy friday”/);
  // Tab stays inside the modal dialog.
  const edit = await tabUntil(page, (f) => {
    assert.ok(f.inDialog || f.desc === 'body:', `focus left the dialog: ${f.desc}`);
    return f.desc === 'button:Edit';
  }, 10);
  assert.equal(edit.desc, 'button:Edit');
  await page.keyboard.press('Enter');
  assert.deepEqual(await focused(page), { desc: '[name=title]', inDialog: true, form: 'edit-form' });
  await page.keyboard.press('End');
  await page.keyboard.type(' (keyboard edit)');
  await page.keyboard.press('Enter'); // submits the form
  await page.waitForFunction(() => document.querySelector('#detail-title').textContent === 'Never deploy on Fridays (keyboard edit)');
  assert.equal((await focused(page)).desc, '#detail-title');
  await page.keyboard.press('Escape');
  await page.locator('#detail').waitFor({ state: 'hidden' });
  // The edit re-renders the results: focus goes back once the result is drawn again.
  await page.waitForFunction(() => !document.activeElement?.closest('dialog'), null, { timeout: 2000 }).catch(() => {});
  assert.equal((await focused(page)).desc, 'button:Never deploy on Fridays (keyboard edit)', 'focus returns to the result');

  // "/" goes back to the search box; Tab reaches the mode radios, arrows switch mode.
  await page.keyboard.press('/');
  assert.equal((await focused(page)).desc, '#q');
  await page.keyboard.press('Tab');
  assert.equal((await focused(page)).desc, '[name=mode]');
  await page.keyboard.press('ArrowRight');
  await settle(page);
  assert.ok(await page.isChecked('input[name=mode][value=and]'));
  assert.match(await page.textContent('#summary'), /all terms \(AND\)/);

  // Add a memory with the keyboard alone.
  await tabUntil(page, (f) => f.form === 'add-form' && f.desc === '[name=title]');
  await page.keyboard.type('Keyboard-only memory');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Typed without touching the mouse: capybara.');
  await tabUntil(page, (f) => f.desc === 'button:Add memory', 20); // date-time fields take a Tab per part
  await page.keyboard.press('Enter');
  await page.waitForSelector('body[data-saved]');
  await page.keyboard.press('/');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('capybara');
  await page.waitForFunction(() => document.querySelector('#q').value === 'capybara');
  await settle(page);
  assert.deepEqual(await titles(page), ['Keyboard-only memory']);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('focus order follows the layout: skip link, search, mode, filters, results, add, import/export, index', async () => {
  const page = await openExplorer(env);
  await typeQuery(page, 'alex');
  // From the search box, Shift+Tab reaches the skip link, the first stop.
  await page.keyboard.press('Shift+Tab');
  const order = [(await focused(page)).desc];
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    if (order.at(-1) !== f.desc) order.push(f.desc); // date inputs take a Tab per part
    const visible = await page.evaluate(() => {
      const r = document.activeElement.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    });
    assert.ok(visible, `${f.desc} is visible when focused`);
    if (f.desc === '#compact') break;
  }
  const expected = [
    'a:Skip to search', '#q', '[name=mode]', '#f-namespace', '#f-kind', '#f-tags', '#f-from', '#f-to', '#sort', 'button:Clear all',
    'button:Alex is allergic to peanuts',
    '[name=title]', '[name=text]', '[name=kind]', '[name=namespace]', '[name=tags]', '[name=timestamp]', 'button:Add memory',
    '#jsonl', '#load-bulk', '#snapshot-file', '#export', '#reset', '#compact',
  ];
  let at = -1;
  for (const want of expected) {
    const next = order.indexOf(want, at + 1);
    assert.ok(next > at, `${want} comes after ${expected[expected.indexOf(want) - 1]} in ${JSON.stringify(order)}`);
    at = next;
  }
  // The skip link jumps to the search box.
  await page.keyboard.press('/');
  await page.keyboard.press('Shift+Tab');
  assert.equal((await focused(page)).desc, 'a:Skip to search');
  await page.keyboard.press('Enter');
  assert.equal((await focused(page)).desc, '#q');
  await page.context().close();
});

test('every control has an accessible name; text contrast is at least 4.5:1', async () => {
  const page = await openExplorer(env);
  await typeQuery(page, 'deploy friday');
  await page.click('#results button.open');
  const report = await page.evaluate(() => {
    const unnamed = [];
    for (const el of document.querySelectorAll('input, select, textarea, button')) {
      const named =
        el.labels?.length > 0 || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || (el.tagName === 'BUTTON' && el.textContent.trim());
      if (!named) unnamed.push(el.outerHTML.slice(0, 80));
    }
    // WCAG relative luminance and contrast of every element's own text.
    const rgb = (c) => c.match(/[\d.]+/g).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const background = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = getComputedStyle(e).backgroundColor;
        const v = rgb(c);
        if (v.length < 4 || v[3] > 0.5) return v.slice(0, 3);
        if (e.tagName === 'DIALOG') break;
      }
      return [255, 255, 255];
    };
    const low = [];
    let checked = 0;
    for (const el of document.querySelectorAll('body *')) {
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || el.closest('[hidden], .visually-hidden') || el.disabled) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (document.querySelector('#detail').open && !el.closest('dialog')) continue; // under the backdrop
      const fg = rgb(getComputedStyle(el).color).slice(0, 3);
      const [a, b] = [lum(fg), lum(background(el))].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      checked++;
      if (ratio < 4.5) low.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}": ${ratio.toFixed(2)}`);
    }
    return { unnamed, low, checked };
  });
  assert.deepEqual(report.unnamed, []);
  assert.ok(report.checked > 20, `checked ${report.checked} text elements`);
  assert.deepEqual(report.low, []);
  // The same check on the page itself (dialog closed).
  await page.keyboard.press('Escape');
  const lowPage = await page.evaluate(() => {
    const rgb = (c) => c.match(/[\d.]+/g).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const background = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const v = rgb(getComputedStyle(e).backgroundColor);
        if (v.length < 4 || v[3] > 0.5) return v.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const low = [];
    for (const el of document.querySelectorAll('body *')) {
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || el.closest('[hidden], .visually-hidden, dialog') || el.disabled) continue;
      const fg = rgb(getComputedStyle(el).color).slice(0, 3);
      const [a, b] = [lum(fg), lum(background(el))].sort((x, y) => y - x);
      if ((a + 0.05) / (b + 0.05) < 4.5) low.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}"`);
    }
    return low;
  });
  assert.deepEqual(lowPage, []);
  await page.context().close();
});

const overflow = (page) =>
  page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
    dialog: document.querySelector('#detail').open ? document.querySelector('#detail').scrollWidth - document.querySelector('#detail').clientWidth : 0,
    wide: [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 && !e.closest('.visually-hidden'))
      .map((e) => `${e.tagName}#${e.id}.${e.className}`)
      .slice(0, 5),
  }));

for (const width of [360, 390]) {
  test(`no horizontal scroll at ${width} px: results, long unbroken text, every panel, the dialog with its explanation`, async () => {
    const page = await openExplorer(env, { viewport: { width, height: 800 } });
    const long = `https://example.com/${'very-long-path-segment/'.repeat(8)}${'x'.repeat(60)}`;
    await page.fill('#add-form [name=title]', `Unbroken ${'W'.repeat(70)}`);
    await page.fill('#add-form [name=text]', `See ${long} and getUserByIdAndThenSomethingEvenLongerThanTheScreenIsWide.`);
    await page.fill('#add-form [name=namespace]', `repo:${'n'.repeat(60)}`);
    await page.click('#add-form button[type=submit]');
    await page.waitForSelector('body[data-saved]');
    for (const q of ['', 'deploy friday', 'unbroken example', 'alex']) {
      await typeQuery(page, q);
      const o = await overflow(page);
      assert.ok(o.scroll <= o.client, `"${q}": scrollWidth ${o.scroll} > ${o.client}: ${o.wide}`);
    }
    await typeQuery(page, 'unbroken example');
    await page.click('#results button.open');
    await settle(page);
    let o = await overflow(page);
    assert.ok(o.scroll <= o.client && o.dialog <= 0, JSON.stringify(o));
    await closeDetail(page);
    await typeQuery(page, 'deploy friday offsite billing');
    await page.click('#results button.open');
    await settle(page);
    o = await overflow(page);
    assert.ok(o.scroll <= o.client && o.dialog <= 0, JSON.stringify(o));
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

test('screenshots at 1280x800 and 390x844 (target/explorer/)', async () => {
  for (const [w, h] of [[1280, 800], [390, 844]]) {
    const page = await openExplorer(env, { viewport: { width: w, height: h } });
    await typeQuery(page, 'deploy frid');
    await page.waitForFunction(() => document.body.dataset.counted === document.body.dataset.searched);
    await page.screenshot({ path: `${ARTIFACTS}explorer-${w}x${h}.png` });
    await page.screenshot({ path: `${ARTIFACTS}explorer-${w}x${h}-full.png`, fullPage: true });
    await page.click('#results button.open');
    await settle(page);
    await page.screenshot({ path: `${ARTIFACTS}explorer-${w}x${h}-detail.png` });
    await closeDetail(page);
    await page.context().close();
  }
  assert.ok(SAMPLES.length > 0);
});
