// `make worker-key NAME=... NS=... ROLE=...`: prints a new random API key and
// the MEMDEX_API_KEYS entry that grants it (only the key's SHA-256 goes into
// the configuration; the key itself is shown once and stored nowhere).
//
//   NS: comma-separated namespaces or patterns ending in * (default: *)
//   ROLE: read | write | admin (default: write)
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

/**
 * @param {{ name: string, namespaces: string[], role: string }} o
 */
export async function newKey({ name, namespaces, role }) {
  if (!['read', 'write', 'admin'].includes(role)) throw new Error(`ROLE must be read, write or admin, not "${role}"`);
  if (namespaces.length === 0 || namespaces.some((p) => p === '' || (p.includes('*') && p.indexOf('*') !== p.length - 1))) {
    throw new Error('NS: comma-separated namespaces, each exact or ending in one "*"');
  }
  // 32 random bytes, base64url: 256 bits, safe in headers and shells.
  const key = `mdx_${randomBytes(32).toString('base64url')}`;
  const sha256 = createHash('sha256').update(key).digest('hex');
  return { key, entry: { name, namespaces, role, sha256 } };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const name = process.env.NAME || 'key';
  const namespaces = (process.env.NS || '*').split(',').map((s) => s.trim()).filter(Boolean);
  const role = process.env.ROLE || 'write';
  try {
    const { key, entry } = await newKey({ name, namespaces, role });
    console.log(`key (give it to the client; it is not stored anywhere):\n  ${key}\n`);
    console.log(`entry (add it to the MEMDEX_API_KEYS JSON array: worker/.dev.vars locally,\n\`npx wrangler secret put MEMDEX_API_KEYS\` when deployed):\n  ${JSON.stringify(entry)}`);
  } catch (err) {
    console.error(err.message);
    process.exit(2);
  }
}
