// Compiles apps/, libs/, migrations/ and bench/ to dist/ with swc (type checking is `npm run typecheck`),
// copies the non-TypeScript files the code reads at run time (isAsset), so dist/ runs on its own, and
// bundles the web console (apps/console, Preact) with esbuild into dist/console, which the API serves.
import { transformFile } from '@swc/core';
import { build as esbuild } from 'esbuild';
import { copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { buildConsoleFonts } from './console-fonts.mjs';

const require = createRequire(import.meta.url);
const { swcOptions, root } = require('./swc-options.cjs');
const SOURCE_DIRS = ['apps', 'libs', 'migrations', 'bench'];
const outDir = path.join(root, 'dist');

/** Files the code reads at run time that are not TypeScript: the demo runbooks. Copied as they are. */
const isAsset = (file) => file.endsWith('.md') && path.basename(path.dirname(file)) === 'runbooks';

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

const started = Date.now();
await rm(outDir, { recursive: true, force: true });
const jobs = [];
for (const dir of SOURCE_DIRS) {
  for await (const file of typescriptFiles(path.join(root, dir))) {
    jobs.push(
      (async () => {
        const rel = path.relative(root, file);
        if (isAsset(file)) {
          const copy = path.join(outDir, rel);
          await mkdir(path.dirname(copy), { recursive: true });
          return copyFile(file, copy);
        }
        const target = path.join(outDir, rel.replace(/\.ts$/, '.js'));
        const output = await transformFile(file, {
          ...swcOptions(),
          filename: file,
          sourceFileName: path.relative(path.dirname(target), file),
          outputPath: target,
        });
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, `${output.code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
        if (output.map) await writeFile(`${target}.map`, output.map);
      })(),
    );
  }
}
const consoleDir = path.join(root, 'apps/console');
const consoleOut = path.join(outDir, 'console');
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
console.error(`build: ${jobs.length} files in ${Date.now() - started} ms`);
