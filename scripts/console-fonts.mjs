// The console's Korean font fallback: Noto Sans KR (SIL Open Font License 1.1, @fontsource/noto-sans-kr),
// weight 400, split by unicode-range into ~120 small woff2 files so a browser fetches only the pieces a
// page's Hangul needs (a page without Hangul fetches none). Copied into dist/console/fonts with a fonts.css that names them (woff2 only: every
// browser the console supports reads it). Without it, a machine with no CJK font shows Hangul as empty boxes.
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** Writes fonts.css and the woff2 files it names into `<consoleOut>/fonts`; returns how many files. */
export async function buildConsoleFonts(consoleOut) {
  const source = require.resolve('@fontsource/noto-sans-kr/400.css');
  const packageDir = path.dirname(source);
  // The numbered slices are the Hangul ones ([0]..[119]); the latin and cyrillic faces are left to the system.
  const css = (await readFile(source, 'utf8'))
    .split(/(?=\/\* noto-sans-kr-)/)
    .filter((block) => /^\/\* noto-sans-kr-\[\d+\]-400-normal \*\//.test(block))
    .join('')
    .replace(/,\s*url\([^)]*\.woff\) format\('woff'\)/g, '')
    // Latin and Latin-1 stay with the system fonts: the face can then lead every font list (Chromium
    // does not reliably fall back to a family listed after a generic one such as monospace).
    .replace(/unicode-range: ([^;]*);/g, (_, ranges) => {
      const kept = ranges.split(',').filter((range) => parseInt(range.trim().slice(2), 16) >= 0x100);
      return `unicode-range: ${kept.join(',')};`;
    });
  const files = [...css.matchAll(/url\(\.\/files\/([^)]+\.woff2)\)/g)].map((m) => m[1]);
  const out = path.join(consoleOut, 'fonts');
  await mkdir(out, { recursive: true });
  await Promise.all([
    ...files.map((file) => copyFile(path.join(packageDir, 'files', file), path.join(out, file))),
    copyFile(path.join(packageDir, 'LICENSE'), path.join(out, 'LICENSE-noto-sans-kr.txt')),
    writeFile(path.join(out, 'fonts.css'), css.replaceAll('url(./files/', 'url(./')),
  ]);
  return files.length;
}
