// Synthetic agent memories for the "load 100k" button: generated in the page
// from a seeded PRNG and a few hundred words, so nothing is downloaded and
// the same count always gives the same documents (benchmarks stay
// comparable across runs). Plain module with no DOM use: Node imports it too.

/** Namespaces of generated memories all start with this, so the namespace prefix filter `bulk:` selects them and "remove" can drop them. */
export const BULK_PREFIX = 'bulk:';
export const BULK_NAMESPACES = [
  ...Array.from({ length: 12 }, (_, i) => `${BULK_PREFIX}agent-${String(i + 1).padStart(2, '0')}`),
  ...Array.from({ length: 4 }, (_, i) => `${BULK_PREFIX}user-${String(i + 1).padStart(2, '0')}`),
];

const KINDS = ['note', 'decision', 'rule', 'observation', 'code', 'summary'];
const TAGS = (
  'infra billing auth search frontend backend oncall security perf docs release data ' +
  'mobile api ux testing ci cost privacy support research ops team storage'
).split(' ');

// Word lists by role; order matters: earlier words are drawn more often
// (skewed picks below), which gives the long-tailed term frequencies of
// real text instead of a flat distribution.
/** @param {string} s */
const W = (s) => s.trim().split(/\s+/);
const VERBS = W(`deploy rotate review migrate cache retry index rebuild archive backup restore
  monitor profile benchmark refactor document escalate approve reject schedule throttle
  compress encrypt validate parse serialize upgrade downgrade rollback release publish
  merge split shard replicate snapshot compact prune flush commit revert label triage
  summarize tag audit debug patch pin unpin measure alert notify`);
const OBJECTS = W(`database credentials token queue cache index schema dashboard pipeline
  cluster service worker endpoint bucket certificate invoice refund ticket release branch
  build container image secret webhook cron job report budget quota replica shard
  migration backup snapshot manifest segment postings dictionary analyzer stemmer tokenizer
  parser router gateway proxy firewall session cookie password account customer
  order payment subscription contract roadmap meeting retrospective incident postmortem
  runbook alert metric trace log latency throughput memory disk network region zone
  feature flag experiment cohort funnel search query ranking filter namespace tenant
  document page form button modal theme layout font icon translation locale timezone`);
// Phrases, comma-separated.
/** @param {string} s */
const P = (s) => s.split(',').map((x) => x.trim().replace(/\s+/g, ' '));
const QUALIFIERS = P(`before friday, after lunch, every night, weekly, monthly, on call, in staging,
  in production, for the demo, for customers, for the team, by hand, with a script, under load,
  at peak hours, during the freeze, behind a flag, per tenant, per region, with retries,
  without downtime, in small batches, first, carefully, again later, soon, today`);
const SUBJECTS = P(`the agent, the user, the team, the reviewer, the ops agent, the support agent,
  the coder, the scheduler, the release manager, the on-call lead, the customer, the analyst`);
const REASONS = P(`because it was slow, because it failed twice, because the budget ran out,
  because the customer asked, because the tests were flaky, because of the outage,
  because latency doubled, because the disk filled up, because a secret leaked,
  because the schema changed, because traffic peaks on monday, because it saves money`);
const NAMES = W(`alex dana kim ravi mei jonas lea omar sofia yuki tariq ines noah priya
  lucas amara felix hana diego zoe`);

// mulberry32: tiny, fast, good enough for test data.
/** @param {number} seed */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const START = Date.UTC(2024, 0, 1);
const SPAN = Date.UTC(2026, 10, 1) - START;

/**
 * Yields `count` memories in the explorer's schema (title, text, kind,
 * namespace, tags, timestamp). Ids are `bulk-000001`... so loading twice
 * replaces instead of duplicating.
 * @param {number} count
 * @param {number} [seed]
 */
export function* syntheticMemories(count, seed = 2026) {
  const rnd = prng(seed);
  /** @param {string[]} list */
  const any = (list) => list[Math.floor(rnd() * list.length)];
  /** @param {string[]} list */
  const skewed = (list) => list[Math.floor(rnd() * rnd() * list.length)];
  const width = String(count).length < 6 ? 6 : String(count).length;
  for (let i = 1; i <= count; i++) {
    const verb = skewed(VERBS);
    const object = skewed(OBJECTS);
    const other = skewed(OBJECTS);
    const name = any(NAMES);
    const title = `${cap(verb)} the ${object} ${any(QUALIFIERS)}`;
    const text =
      `${cap(any(SUBJECTS))} decided to ${verb} the ${object} ${any(QUALIFIERS)} ${any(REASONS)}. ` +
      `${cap(name)} will ${skewed(VERBS)} the ${other} and ${skewed(VERBS)} the ${skewed(OBJECTS)} ${any(QUALIFIERS)}; ` +
      `see ticket ${object.slice(0, 3).toUpperCase()}-${100 + Math.floor(rnd() * 9900)}.`;
    const tags = [any(TAGS)];
    if (rnd() < 0.5) tags.push(any(TAGS));
    yield {
      id: `bulk-${String(i).padStart(width, '0')}`,
      namespace: any(BULK_NAMESPACES),
      kind: skewed(KINDS),
      title,
      text,
      tags: [...new Set(tags)],
      timestamp: new Date(START + Math.floor(rnd() * SPAN)).toISOString(),
    };
  }
}

/** @param {string} s */
function cap(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
