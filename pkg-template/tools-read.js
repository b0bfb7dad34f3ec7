// The read tools: memory_search, memory_list, memory_get, memory_related.
import {
  MAX_LISTED, PREVIEW_CHARS, clip, describeFilter, fail, filterOf, find, fullText, idsOf, memoryOf, metaLine, notFound, ok,
  unescapeHtml, vectorOptions, viaOf,
} from './tools-common.js';

/** @typedef {import('./tools-common.js').ToolContext} ToolContext */
/** @typedef {import('./tools-common.js').ToolArgs} ToolArgs */
/** @typedef {import('./tools-common.js').ToolResult} ToolResult */

/**
 * @param {ToolContext} ctx
 * @param {ToolArgs & { query: string }} args
 * @returns {Promise<ToolResult>}
 */
export async function search(ctx, args) {
  if (args.query.trim() === '' && args.vector === undefined) {
    throw fail('USAGE', '"query" is blank; give words to look for (or a "vector"), or use memory_list to browse memories');
  }
  const limit = args.limit ?? 8;
  if (args.budgetTokens !== undefined && args.maxChars !== undefined) {
    throw fail('USAGE', 'give either "maxChars" or "budgetTokens", not both');
  }
  // Tokens are counted as ceil(chars / 4); the note lines added below the
  // hits fit in the 300 characters kept back.
  const maxChars =
    args.budgetTokens !== undefined ? Math.max(100, args.budgetTokens * 4 - 300) : ctx.maxChars(args.maxChars, 4000);
  const order = args.order ?? 'relevance';
  // Snippets sized so that `limit` hits roughly fill the budget.
  const snippetLength = Math.max(80, Math.min(600, Math.floor(maxChars / limit) - 80));
  // By meaning by default when the server embeds (and no order or vector asks otherwise).
  const semantic = args.semantic ?? (ctx.embedField !== undefined && order === 'relevance' && args.vector === undefined ? 'hybrid' : 'off');
  const results = await ctx.index.search(args.query, {
    limit,
    // Absent: the engine's default mode (the library's and the Worker's too).
    mode: args.mode,
    // Agents misspell: a word no memory contains matches its spellings one
    // or two edits away ('auto' leaves words the index has alone).
    fuzzy: 'auto',
    filter: filterOf(ctx, args),
    highlight: { preTag: '', postTag: '', snippetLength },
    sort: order === 'relevance' ? undefined : { field: 'timestamp', order: order === 'newest' ? 'desc' : 'asc' },
    expand: args.expand,
    ...vectorOptions(ctx, args.vector),
    ...(semantic === 'off' ? {} : { semantic }),
  });
  const { hits: found, mode, total, totalExact } = results;
  // Links never lead out of a pinned namespace (expand follows them).
  const hits = ctx.pinned ? found.filter((h) => h.namespace === ctx.ns) : found;
  /** @type {Record<string, unknown>[]} */
  const out = [];
  const lines = [];
  let used = 0;
  let truncated = false;
  for (const hit of hits) {
    const m = memoryOf(ctx, hit.id, { ...hit.fields, namespace: hit.namespace });
    const text = String(hit.fields.text ?? '');
    let snippet = hit.snippets?.text !== undefined ? unescapeHtml(hit.snippets.text) : clip(text, snippetLength);
    const header = `${out.length + 1}. [${m.id}]${m.title ? ` ${m.title}` : ''}${metaLine(m)} score ${hit.score.toFixed(2)}`;
    const room = maxChars - used - header.length - 5;
    if (room < 40 && out.length > 0) {
      truncated = true;
      break;
    }
    if (snippet.length > room) {
      snippet = clip(snippet, Math.max(40, room));
      truncated = true;
    }
    const snippetTruncated = snippet !== text.trim();
    lines.push(`${header}\n   ${snippet}`);
    used += header.length + snippet.length + 5;
    /** @type {Record<string, unknown>} */
    const found = { ...m, score: hit.score, snippet, snippetTruncated };
    if (hit.via) found.via = viaOf(hit.via, hit.namespace);
    out.push(found);
  }
  const omitted = hits.length - out.length;
  /** @type {Record<string, unknown>} */
  const structured = { query: args.query, mode, order, hits: out, returned: out.length, truncated, omitted, maxChars };
  // `total` counts every match (exact up to the engine's threshold; past
  // it a lower bound, said by totalExact: false).
  if (total !== undefined) structured.total = total;
  if (total !== undefined && totalExact === false) structured.totalExact = false;
  if (results.semantic !== undefined) structured.semantic = results.semantic;
  // A semantic search without an embedder was answered by words alone: say so.
  const note = results.semantic === 'lexical' && semantic !== 'off' ? '\n[no embedder is configured on this server: answered by words alone]' : '';
  if (out.length === 0) {
    const scope = describeFilter(args);
    return ok(
      `No memories match "${args.query}"${scope ? ` (${scope})` : ''}. Try other or fewer words, fewer filters, or memory_list to browse.${note}`,
      structured,
    );
  }
  const how = `${results.semantic === 'hybrid' || results.semantic === 'vector' ? `${results.semantic} by meaning, ` : ''}${mode} mode${order === 'relevance' ? '' : `, ${order} first`}`;
  const of = total === undefined ? '' : ` of ${totalExact === false ? 'at least ' : ''}${total}`;
  let text = `${out.length}${of} memor${out.length === 1 ? 'y' : 'ies'} for "${args.query}" (${how}):\n\n${lines.join('\n')}`;
  if (omitted > 0) text += `\n\n[${omitted} more hit${omitted === 1 ? '' : 's'} omitted to fit the ${maxChars}-character budget; narrow the search or raise maxChars]`;
  else if (truncated) text += `\n\n[snippets shortened to fit the ${maxChars}-character budget]`;
  if (out.some((h) => h.snippetTruncated)) text += '\n[snippets are excerpts; memory_get returns the full text]';
  text += note;
  if (args.budgetTokens !== undefined) {
    const usedTokens = Math.ceil(text.length / 4);
    structured.usedTokens = usedTokens;
    if (usedTokens > args.budgetTokens) throw fail('INTERNAL', 'answer over budgetTokens'); // cannot happen: see maxChars above
  }
  return ok(text, structured);
}

/**
 * @param {ToolContext} ctx
 * @param {ToolArgs & { id: string }} args
 * @returns {Promise<ToolResult>}
 */
export async function related(ctx, args) {
  const found = await find(ctx, args.id);
  if (!found) throw fail('NOT_FOUND', notFound(ctx, [args.id]));
  const hits = await ctx.index.related(found.key, {
    hops: args.hops,
    types: args.types,
    direction: args.direction,
    limit: MAX_LISTED,
  });
  // Within the call's namespace only (links never cross tenants in answers).
  /** @type {Record<string, unknown>[]} */
  const memories = [];
  const lines = [];
  for (const hit of hits) {
    if (ctx.ns !== undefined && hit.namespace !== ctx.ns) continue;
    if (memories.length === (args.limit ?? 10)) break;
    const m = memoryOf(ctx, hit.id, { ...hit.fields, namespace: hit.namespace });
    const preview = clip(String(hit.fields.text ?? ''), PREVIEW_CHARS);
    // Every related hit was reached by a link.
    const via = viaOf(/** @type {import('./tools-common.js').Via} */ (hit.via), hit.namespace);
    memories.push({ ...m, preview, via });
    lines.push(`${memories.length}. [${m.id}]${m.title ? ` ${m.title}` : ''}${metaLine(m)} via ${via.type} from ${via.from} (${via.hops} hop${via.hops === 1 ? '' : 's'})\n   ${preview}`);
  }
  const text = memories.length
    ? `${memories.length} memor${memories.length === 1 ? 'y' : 'ies'} linked to "${args.id}":\n\n${lines.join('\n')}`
    : `No memories linked to "${args.id}"${args.types ? ` by ${args.types.join(' or ')}` : ''} (direction ${args.direction ?? 'out'}). Try direction "both" or more hops.`;
  return ok(text, { id: args.id, memories, returned: memories.length });
}

/**
 * @param {ToolContext} ctx
 * @param {ToolArgs} args
 * @returns {Promise<ToolResult>}
 */
export async function list(ctx, args) {
  const sortBy = args.sortBy ?? 'timestamp';
  const order = args.order ?? (sortBy === 'timestamp' ? 'desc' : 'asc');
  const limit = args.limit ?? 20;
  const maxChars = ctx.maxChars(args.maxChars, 4000);
  const filter = filterOf(ctx, args);
  // The cursor is the position plus a fingerprint of what is listed, so a
  // cursor reused with other filters is caught instead of skipping items.
  const listing = fingerprint(JSON.stringify([filter, sortBy, order]));
  const offset = args.cursor === undefined ? 0 : readCursor(args.cursor, listing);
  if (offset + limit > MAX_LISTED) {
    throw fail('USAGE', `lists stop at ${MAX_LISTED} memories; narrow the listing with since/until, kind or tags`);
  }
  const results = await ctx.index.search('', { filter, sort: { field: sortBy, order: order === 'asc' ? 'asc' : 'desc' }, limit, offset });
  const { hits } = results;
  // Sorted listings count every match.
  const total = results.total ?? 0;
  /** @type {Record<string, unknown>[]} */
  const out = [];
  const lines = [];
  let used = 0;
  for (const hit of hits) {
    const m = memoryOf(ctx, hit.id, { ...hit.fields, namespace: hit.namespace });
    const preview = clip(String(hit.fields.text ?? ''), PREVIEW_CHARS);
    const line = `${offset + out.length + 1}. [${m.id}]${m.title ? ` ${m.title}` : ''}${metaLine(m)}\n   ${preview}`;
    if (used + line.length > maxChars && out.length > 0) break;
    used += line.length + 1;
    lines.push(line);
    out.push({ ...m, preview });
  }
  const truncated = out.length < hits.length;
  const next = offset + out.length;
  /** @type {Record<string, unknown>} */
  const structured = { memories: out, returned: out.length, total, sortBy, order, truncated };
  const nextCursor = next < total ? makeCursor(next, listing) : undefined;
  if (nextCursor) structured.nextCursor = nextCursor;
  const scope = describeFilter(args);
  if (out.length === 0) {
    return ok(
      total === 0
        ? `No memories${scope ? ` ${scope}` : ' stored yet'}.`
        : `No memories past position ${offset} (${total} in all); start again without cursor.`,
      structured,
    );
  }
  const orderText = sortBy === 'timestamp' ? (order === 'desc' ? 'newest first' : 'oldest first') : `by ${sortBy} ${order}`;
  let text = `Memories ${offset + 1}-${next} of ${total}${scope ? ` (${scope})` : ''}, ${orderText}:\n\n${lines.join('\n')}`;
  if (nextCursor) {
    text += `\n\n[${total - next} more${truncated ? ' (this page was cut to fit maxChars)' : ''}: call memory_list with cursor "${nextCursor}" and the same filters]`;
  }
  return ok(text, structured);
}

/** @param {string} s */
function fingerprint(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}
/** @param {number} offset @param {string} listing */
const makeCursor = (offset, listing) => `${offset.toString(36)}.${listing}`;
/** @param {string} cursor @param {string} listing */
function readCursor(cursor, listing) {
  const m = /^([0-9a-z]+)\.([0-9a-z]+)$/.exec(cursor);
  if (!m) throw fail('USAGE', '"cursor" is not a nextCursor from memory_list; start without cursor');
  if (m[2] !== listing) {
    throw fail('USAGE', '"cursor" belongs to a listing with other filters or order; repeat the same filters, or start without cursor');
  }
  return parseInt(m[1], 36);
}

/**
 * @param {ToolContext} ctx
 * @param {ToolArgs} args
 * @returns {Promise<ToolResult>}
 */
export async function get(ctx, args) {
  const ids = /** @type {string[]} */ (idsOf(args, 'memory_get'));
  const memories = [];
  const missing = [];
  const texts = [];
  for (const id of new Set(ids)) {
    const found = await find(ctx, id);
    if (!found) {
      missing.push(id);
      continue;
    }
    const m = { ...memoryOf(ctx, found.key, found.doc), text: String(found.doc.text ?? '') };
    memories.push(m);
    texts.push(fullText(m, m.text));
  }
  if (memories.length === 0) throw fail('NOT_FOUND', notFound(ctx, missing));
  let text = texts.join('\n\n---\n\n');
  if (missing.length) text += `\n\n[not found: ${missing.join(', ')}]`;
  return ok(text, { memories, missing });
}

