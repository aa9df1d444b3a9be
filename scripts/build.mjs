// Compiles apps/, libs/, migrations/ and bench/ to dist/ with swc (type checking is `npm run typecheck`),
// copies the non-TypeScript files the code reads at run time (isAsset), so dist/ runs on its own, and
// bundles the web console (apps/console, Preact) with esbuild into dist/console, which the API serves.
//
// dist/ may be in use by a running server (`npm start` serves the console from it and loads modules
// lazily), so a build never deletes it: it compiles into a staging folder inside dist/, then moves
// each changed file over its old version with rename(2) (atomic: a reader sees the old or the new file,
// never none), then removes the files no source produces any more. Builds of several processes at once
// take turns (dist/.build.lock). `--if-stale` skips the build when dist/.build-stamp.json records the
// same content hash of the inputs (sources, build scripts, lock file), which takes ~0.1 s: `npm run
// cli|mcp|worker` and `npm start` build only when something changed.
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildConsoleFonts } from './console-fonts.mjs';

const require = createRequire(import.meta.url);
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['apps', 'libs', 'migrations', 'bench'];
const outDir = path.join(root, 'dist');
const STAMP = '.build-stamp.json';
const LOCK = '.build.lock';
const STAGING_PREFIX = '.staging-';
/** The servers' V8 code cache (apps/api/src/code-cache.ts): not a build output, kept across builds. */
const CODE_CACHE = '.code-cache';
/** Inputs besides the sources whose change changes the output. */
const BUILD_INPUTS = [
  'scripts/build.mjs',
  'scripts/console-fonts.mjs',
  'scripts/swc-options.cjs',
  'tsconfig.json',
  'package-lock.json',
];

/**
 * Files the code reads at run time that are not TypeScript, copied as they are: the demo runbooks and the
 * prepared embedded cluster (libs/platform/src/database/cluster-image.ts).
 */
const isAsset = (file) =>
  (file.endsWith('.md') && path.basename(path.dirname(file)) === 'runbooks') ||
  /[/\\]embedded-cluster\.(tar\.br|json)$/.test(file);

async function* typescriptFiles(dir) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (
        !['node_modules', 'test', 'console'].includes(entry.name) ||
        full === path.join(root, 'apps/api/src/console')
      )
        yield* typescriptFiles(full);
    } else if (isAsset(full)) {
      yield full;
    } else if (
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.spec.ts') &&
      !entry.name.endsWith('.d.ts')
    ) {
      yield full;
    }
  }
}

/** Every file under the source folders (console included, tests and node_modules not), sorted. */
function inputFiles() {
  const files = [];
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'test') walk(full);
      } else if (!entry.name.endsWith('.spec.ts')) {
        files.push(full);
      }
    }
  };
  for (const dir of SOURCE_DIRS) walk(path.join(root, dir));
  for (const file of BUILD_INPUTS) files.push(path.join(root, file));
  return files.sort();
}

/** Content hash of the build's inputs (paths and bytes); null when there are no sources (a shipped dist/). */
export function inputHash() {
  if (!existsSync(path.join(root, 'apps'))) return null;
  const hash = createHash('sha256');
  for (const file of inputFiles()) {
    hash.update(path.relative(root, file));
    hash.update('\0');
    try {
      hash.update(readFileSync(file));
    } catch {
      hash.update('(missing)');
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(path.join(outDir, STAMP), 'utf8'));
  } catch {
    return null;
  }
}

/** True when dist/ was built from exactly the current inputs (or there are no sources to build from). */
export function isFresh(hash = inputHash()) {
  if (hash === null) return existsSync(outDir);
  return readStamp()?.inputs === hash;
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One build at a time per checkout; a lock left by a process that died is taken over. */
async function withBuildLock(fn, onWait) {
  mkdirSync(outDir, { recursive: true });
  const lockFile = path.join(outDir, LOCK);
  let waited = false;
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lockFile, 'utf8').trim() || NaN);
      if (Number.isInteger(holder) && holder !== process.pid && !alive(holder)) {
        rmSync(lockFile, { force: true });
        continue;
      }
      if (!waited) onWait?.(holder);
      waited = true;
      await sleep(100);
    }
  }
  try {
    return await fn(waited);
  } finally {
    rmSync(lockFile, { force: true });
  }
}

async function compileInto(stage) {
  const [{ transformFile }, { build: esbuild }] = await Promise.all([import('@swc/core'), import('esbuild')]);
  const { swcOptions } = require('./swc-options.cjs');
  const jobs = [];
  for (const dir of SOURCE_DIRS) {
    for await (const file of typescriptFiles(path.join(root, dir))) {
      jobs.push(
        (async () => {
          const rel = path.relative(root, file);
          if (isAsset(file)) {
            const copy = path.join(stage, rel);
            await mkdir(path.dirname(copy), { recursive: true });
            return copyFile(file, copy);
          }
          // Source map paths as seen from the final place in dist/, not from the staging folder.
          const target = path.join(outDir, rel.replace(/\.ts$/, '.js'));
          const staged = path.join(stage, rel.replace(/\.ts$/, '.js'));
          const output = await transformFile(file, {
            ...swcOptions(),
            filename: file,
            sourceFileName: path.relative(path.dirname(target), file),
            outputPath: target,
          });
          await mkdir(path.dirname(staged), { recursive: true });
          await writeFile(staged, `${output.code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
          if (output.map) await writeFile(`${staged}.map`, output.map);
        })(),
      );
    }
  }
  const consoleDir = path.join(root, 'apps/console');
  const consoleOut = path.join(stage, 'console');
  jobs.push(
    esbuild({
      entryPoints: { console: path.join(consoleDir, 'src/main.tsx') },
      bundle: true,
      format: 'esm',
      target: 'es2022',
      minify: true,
      sourcemap: true,
      jsx: 'automatic',
      jsxImportSource: 'preact',
      outdir: consoleOut,
      logLevel: 'warning',
    }).then(() =>
      Promise.all([
        copyFile(path.join(consoleDir, 'index.html'), path.join(consoleOut, 'index.html')),
        copyFile(path.join(consoleDir, 'src/console.css'), path.join(consoleOut, 'console.css')),
        buildConsoleFonts(consoleOut),
      ]),
    ),
  );
  await Promise.all(jobs);
  return jobs.length;
}

/** Relative paths of the files under dir, skipping the build's own bookkeeping at the top level. */
async function listFiles(dir, rel = '') {
  const out = [];
  let entries;
  try {
    entries = await readdir(path.join(dir, rel), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (
      !rel &&
      (entry.name === STAMP ||
        entry.name === LOCK ||
        entry.name === CODE_CACHE ||
        entry.name.startsWith(STAGING_PREFIX))
    )
      continue;
    const child = rel ? path.join(rel, entry.name) : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(dir, child)));
    else out.push(child);
  }
  return out;
}

async function sameContent(a, b) {
  try {
    const [x, y] = await Promise.all([readFile(a), readFile(b)]);
    return x.equals(y);
  } catch {
    return false;
  }
}

/** Moves the staged files into dist/ one atomic rename at a time; then drops files nothing produced. */
async function publish(stage) {
  const staged = await listFiles(stage);
  let changed = 0;
  for (const rel of staged) {
    const from = path.join(stage, rel);
    const to = path.join(outDir, rel);
    if (await sameContent(from, to)) continue;
    await mkdir(path.dirname(to), { recursive: true });
    await rename(from, to);
    changed++;
  }
  const produced = new Set(staged);
  let removed = 0;
  for (const rel of await listFiles(outDir)) {
    if (produced.has(rel)) continue;
    await rm(path.join(outDir, rel), { force: true });
    removed++;
  }
  return { changed, removed };
}

function writeStamp(hash) {
  const file = path.join(outDir, STAMP);
  const tmp = `${file}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ inputs: hash, built_at: new Date().toISOString() }));
  renameSync(tmp, file);
}

/**
 * Builds dist/ (see the top of this file). `ifStale`: only when the inputs changed since the last build.
 * Returns whether it built.
 */
export async function build({ ifStale = false, quiet = false } = {}) {
  const started = Date.now();
  if (ifStale && isFresh()) return false;
  if (!existsSync(path.join(root, 'apps'))) {
    throw new Error(`no sources to build dist/ from in ${root}`);
  }
  return withBuildLock(
    async (waited) => {
      // Another process built while this one waited: nothing left to do when it built the same inputs.
      const hash = inputHash();
      if (ifStale && waited && isFresh(hash)) return false;
      const stage = path.join(outDir, `${STAGING_PREFIX}${process.pid}`);
      await rm(stage, { recursive: true, force: true });
      try {
        const files = await compileInto(stage);
        const { changed, removed } = await publish(stage);
        writeStamp(hash);
        if (!quiet)
          console.error(
            `build: ${files} files in ${Date.now() - started} ms (${changed} changed, ${removed} removed)`,
          );
      } finally {
        await rm(stage, { recursive: true, force: true });
      }
      // Staging folders of builds that died half-way.
      for (const name of readdirSync(outDir)) {
        if (!name.startsWith(STAGING_PREFIX)) continue;
        const pid = Number(name.slice(STAGING_PREFIX.length));
        if (!alive(pid)) rmSync(path.join(outDir, name), { recursive: true, force: true });
      }
      return true;
    },
    (holder) => {
      if (!quiet) console.error(`build: waiting for the build of process ${holder}`);
    },
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  try {
    await build({ ifStale: args.includes('--if-stale'), quiet: args.includes('--quiet') });
  } catch (error) {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  }
}
