// Keystroke-to-rendered-results latency, with the User Timing API so tests
// and DevTools read the same numbers the index panel shows. Each keystroke
// is measured from the input event's timeStamp (when the key produced the
// event, so time spent waiting behind other work counts) to the next
// animation frame after the results were put in the DOM (the frame that
// paints them). `memdex:search` entries are the engine call alone.

const keep = 500;
/** @type {{ keystroke: number[], search: number[] }} */
const samples = { keystroke: [], search: [] };

/**
 * @param {number[]} list
 * @param {number} v
 */
function push(list, v) {
  list.push(v);
  if (list.length > keep) list.shift();
}

/**
 * @param {number[]} values
 * @param {number} p percent
 */
export function percentile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Records one engine call.
 * @param {number} start
 * @param {number} end
 * @param {object} detail
 */
export function recordSearch(start, end, detail) {
  performance.measure('memdex:search', { start, end, detail });
  push(samples.search, end - start);
}

/**
 * Records a keystroke once its results are on screen (at the next frame);
 * calls `done(ms)`. A keystroke whose frame is shared with a later one
 * still counts: its user waited that long.
 * @param {number} eventTime
 * @param {object} detail
 * @param {(ms: number) => void} [done]
 */
export function recordKeystroke(eventTime, detail, done) {
  requestAnimationFrame(() => {
    const end = performance.now();
    performance.measure('memdex:keystroke', { start: eventTime, end, detail });
    push(samples.keystroke, end - eventTime);
    done?.(end - eventTime);
  });
}

export function summary() {
  const k = samples.keystroke;
  const s = samples.search;
  return {
    keystrokes: k.length,
    lastKeystroke: k.at(-1),
    p50Keystroke: percentile(k, 50),
    p95Keystroke: percentile(k, 95),
    lastSearch: s.at(-1),
    p95Search: percentile(s, 95),
  };
}

/** Forget earlier samples (the test does this between the sample set and the 100k set). */
export function resetLatency() {
  samples.keystroke.length = 0;
  samples.search.length = 0;
  performance.clearMeasures('memdex:keystroke');
  performance.clearMeasures('memdex:search');
}
