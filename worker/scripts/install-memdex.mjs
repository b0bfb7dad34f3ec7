// Installs the built package into worker/node_modules/memdex the way a
// user's Worker gets it: `npm pack` of pkg/ into target/, and the tarball
// extracted where `npm install` would put it. Offline: the pack is local,
// and memdex's own dependencies resolve from the repository's node_modules.
//
// Idempotent and safe to run from several processes at once (the tests
// do): a stamp of pkg/'s files skips the work when nothing changed, and
// the package is extracted aside and renamed into place.
//
// Run: node worker/scripts/install-memdex.mjs (tests, `make worker` and
// worker/scripts/dev.mjs call installMemdex()).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PKG = join(ROOT, 'pkg');
const TARGET = join(ROOT, 'target');
const MODULES = join(ROOT, 'worker', 'node_modules');
const DEST = join(MODULES, 'memdex');
const STAMP = '.memdex-pack-stamp';

/** Names, sizes and times of pkg/'s files: changes when the package is rebuilt. */
function stampOf() {
  const hash = createHash('sha256');
  for (const f of readdirSync(PKG, { recursive: true }).map(String).sort()) {
    const s = statSync(join(PKG, f));
    if (s.isFile()) hash.update(`${f}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/** The tarball worker/package.json depends on, checked against pkg/'s version. */
function tarballName() {
  const { version } = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
  const want = `memdex-${version}.tgz`;
  const dep = JSON.parse(readFileSync(join(ROOT, 'worker', 'package.json'), 'utf8')).dependencies?.memdex;
  if (dep !== `file:../target/${want}`) {
    throw new Error(`worker/package.json depends on memdex "${dep}"; pkg/ packs ${want}: set it to "file:../target/${want}"`);
  }
  return want;
}

/** Packs and installs pkg/ unless the installed copy is of the same build; returns the package folder. */
export function installMemdex() {
  if (!existsSync(join(PKG, 'memdex_bg.wasm'))) throw new Error('pkg/ is not built: run `make pkg` first');
  const stamp = stampOf();
  const stampFile = join(DEST, STAMP);
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return DEST;
  const name = tarballName();
  mkdirSync(TARGET, { recursive: true });
  mkdirSync(MODULES, { recursive: true });
  const work = mkdtempSync(join(TARGET, 'memdex-pack-'));
  try {
    execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work, PKG], { stdio: ['ignore', 'ignore', 'inherit'] });
    execFileSync('tar', ['-xzf', join(work, name), '-C', work]);
    writeFileSync(join(work, 'package', STAMP), stamp);
    renameSync(join(work, name), join(TARGET, name));
    // Replace the old copy: move it aside first (a rename onto a full folder fails).
    if (existsSync(DEST)) renameSync(DEST, join(work, 'old'));
    renameSync(join(work, 'package'), DEST);
  } catch (err) {
    // Another process may have installed the same build meanwhile.
    if (!(existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp)) throw err;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return DEST;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(`memdex installed from the packed pkg/ into ${installMemdex()}`);
}
