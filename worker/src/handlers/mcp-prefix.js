// @ts-check
// A namespace prefix in the Worker's memory tools: `memory_search` and
// `memory_list` with `namespace: "user:*"` (as the tools' description
// offers) read every namespace starting with `user:` that the key may
// use. Each namespace is its own index here, so the call runs on each
// (read copies, as a single-namespace call does) and the answers are
// merged: search hits by score (each namespace scores with its own
// statistics) or by time, listings by their sort field, each memory
// labelled with its namespace. Other tools work on one namespace.
//
// Bounded: a prefix reads at most MAX_PREFIX_NAMESPACES namespaces (LIMIT
// beyond, with advice to narrow it); a listing's cursor pages one
// namespace, so a prefix listing is one page.
import { mayAccess } from '../auth.js';
import { tools } from '../memdex.js';
import { registryOf } from '../context.js';

/** @typedef {import('../memdex.js').ToolResult} ToolResult */
/** @typedef {(ns: string, args: Record<string, unknown>) => Promise<ToolResult>} RunOne  a read tool call on one namespace */

export const PREFIX_TOOLS = new Set(['memory_search', 'memory_list']);
export const MAX_PREFIX_NAMESPACES = 20;
/** A prefix: what may start a namespace name, then `*`. */
export const PREFIX_RE = /^[A-Za-z0-9._:@-]{0,127}\*$/;

/**
 * Runs read tool `name` on every namespace matching `pattern` that `key`
 * may use, and merges the answers.
 *
 * @param {import('../context.js').Context} c
 * @param {string} name  memory_search or memory_list
 * @param {string} pattern  e.g. "user:*"
 * @param {Record<string, unknown>} args  without `namespace`
 * @param {RunOne} runOne
 * @returns {Promise<ToolResult>}
 */
export async function prefixCall(c, name, pattern, args, runOne) {
  if (name === 'memory_list' && args.cursor !== undefined) {
    return tools.failure('USAGE', `a cursor pages one namespace; call memory_list with the namespace of the memories you are paging, not the prefix "${pattern}".`);
  }
  const prefix = pattern.slice(0, -1);
  const all = await registryOf(c.env).list(prefix);
  const names = all.map((n) => n.name).filter((n) => n.startsWith(prefix) && mayAccess(c.key, n));
  if (names.length === 0) {
    return tools.failure('NOT_FOUND', `No namespace starting with "${prefix}" that this key may use has memories yet (this key may use ${c.key.namespaces.join(', ')}).`);
  }
  if (names.length > MAX_PREFIX_NAMESPACES) {
    return tools.failure(
      'LIMIT',
      `${names.length} namespaces start with "${prefix}"; a prefix reads at most ${MAX_PREFIX_NAMESPACES}. Narrow the prefix (e.g. "${names[0]}*"…) or give one namespace.`,
    );
  }
  /** @type {{ ns: string, result: ToolResult }[]} */
  const answers = [];
  for (const ns of names) answers.push({ ns, result: await runOne(ns, args) });
  // A namespace registered but not yet readable answers NOT_FOUND: left out.
  // Any other error (bad arguments, a failed engine) is the answer.
  const failed = answers.find((a) => a.result.isError && a.result._meta?.['memdex/code'] !== 'NOT_FOUND');
  if (failed) return failed.result;
  const ok = answers.filter((a) => !a.result.isError);
  if (ok.length === 0) return answers[0].result;
  return name === 'memory_search' ? mergeSearch(pattern, args, ok) : mergeList(pattern, args, ok);
}

/**
 * @param {string} pattern
 * @param {Record<string, unknown>} args
 * @param {{ ns: string, result: ToolResult }[]} answers
 * @returns {ToolResult}
 */
function mergeSearch(pattern, args, answers) {
  const limit = /** @type {number} */ (args.limit ?? 8);
  const base = /** @type {Record<string, any>} */ (answers[0].result.structuredContent);
  const order = base.order ?? 'relevance';
  const hits = labelled(answers, 'hits');
  if (order === 'relevance') hits.sort((a, b) => b.score - a.score);
  else hits.sort((a, b) => byTime(a, b) * (order === 'newest' ? -1 : 1));
  const out = hits.slice(0, limit);
  const totals = answers.map((a) => /** @type {Record<string, any>} */ (a.result.structuredContent).total);
  /** @type {Record<string, any>} */
  const structured = { ...base, hits: out, returned: out.length, omitted: Math.max(0, hits.length - out.length) };
  delete structured.total;
  if (totals.every((t) => Number.isInteger(t))) structured.total = totals.reduce((s, t) => s + t, 0);
  const scope = `${answers.length} namespace${answers.length === 1 ? '' : 's'} matching "${pattern}"`;
  if (out.length === 0) return ok(`No memories match "${String(args.query)}" in ${scope}. Try other or fewer words, or memory_list to browse.`, structured);
  const lines = out.map((h, i) => `${i + 1}. [${h.id}]${h.title ? ` ${h.title}` : ''} (namespace: ${h.namespace}) score ${Number(h.score).toFixed(2)}\n   ${h.snippet ?? ''}`);
  const note = order === 'relevance' ? '\n\n[scores are each namespace\'s own: every namespace is a separate index]' : '';
  return ok(`${out.length} memor${out.length === 1 ? 'y' : 'ies'} for "${String(args.query)}" in ${scope}:\n\n${lines.join('\n')}${note}`, structured);
}

/**
 * @param {string} pattern
 * @param {Record<string, unknown>} args
 * @param {{ ns: string, result: ToolResult }[]} answers
 * @returns {ToolResult}
 */
function mergeList(pattern, args, answers) {
  const limit = /** @type {number} */ (args.limit ?? 20);
  const base = /** @type {Record<string, any>} */ (answers[0].result.structuredContent);
  const sortBy = base.sortBy ?? 'timestamp';
  const desc = (base.order ?? 'desc') === 'desc';
  const memories = labelled(answers, 'memories');
  memories.sort((a, b) => (sortBy === 'timestamp' ? byTime(a, b) : String(a[sortBy] ?? '').localeCompare(String(b[sortBy] ?? ''))) * (desc ? -1 : 1));
  const out = memories.slice(0, limit);
  const total = answers.reduce((s, a) => s + Number(/** @type {Record<string, any>} */ (a.result.structuredContent).total ?? 0), 0);
  /** @type {Record<string, any>} */
  const structured = { ...base, memories: out, returned: out.length, total };
  delete structured.nextCursor;
  const scope = `${answers.length} namespace${answers.length === 1 ? '' : 's'} matching "${pattern}"`;
  const lines = out.map((m, i) => `${i + 1}. [${m.id}]${m.title ? ` ${m.title}` : ''} (namespace: ${m.namespace}${m.timestamp ? `; ${m.timestamp}` : ''})\n   ${m.preview ?? ''}`);
  let text = `Memories 1-${out.length} of ${total} in ${scope}:\n\n${lines.join('\n')}`;
  if (total > out.length) text += `\n\n[${total - out.length} more: list one namespace at a time to page with its cursor, or narrow the filters]`;
  return ok(text, structured);
}

/** The answers' `key` lists, each entry labelled with its namespace. @param {{ ns: string, result: ToolResult }[]} answers @param {string} key */
function labelled(answers, key) {
  /** @type {Record<string, any>[]} */
  const out = [];
  for (const { ns, result } of answers) {
    for (const item of /** @type {Record<string, any>} */ (result.structuredContent)[key] ?? []) out.push({ ...item, namespace: ns });
  }
  return out;
}

/** @param {Record<string, any>} a @param {Record<string, any>} b */
const byTime = (a, b) => (Date.parse(a.timestamp ?? '') || 0) - (Date.parse(b.timestamp ?? '') || 0);

/** @param {string} text @param {Record<string, unknown>} structuredContent @returns {ToolResult} */
const ok = (text, structuredContent) => /** @type {ToolResult} */ ({ content: [{ type: 'text', text }], structuredContent, isError: false });
