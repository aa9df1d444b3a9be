/**
 * `npm run build && node dist/bench/parse-bomb-rss.js`: peak RSS of parsing a ~1 MB pptx
 * decompression bomb (security finding 7), each case in a fresh child process.
 *
 * - `baseline`: the child reads the file and parses nothing (the process's own footprint);
 * - `unzipSync`: what the parser did before (fflate `unzipSync` inflates every entry up front);
 * - `budget`: `parseDocument` with the default budget (entry by entry, central directory first).
 *
 * Bombs: a 1 GiB run of zeros in an unused media entry, with honest and with lying (4-byte)
 * declared sizes, and a slide padded with 400 MiB of spaces whose declared size lies.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { parseDocument } from '@app/documents';

const MiB = 1024 * 1024;

const SLIDE = (padding: number) =>
  `<?xml version="1.0" encoding="UTF-8"?><p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>Bomb</a:t></a:r></a:p></p:txBody></p:sp>${' '.repeat(padding)}</p:spTree></p:cSld></p:sld>`;

function pptx(extra: Record<string, Uint8Array>, slidePadding = 0): Uint8Array {
  return zipSync(
    {
      '[Content_Types].xml': strToU8(
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
      ),
      'ppt/presentation.xml': strToU8(
        '<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>',
      ),
      'ppt/_rels/presentation.xml.rels': strToU8(
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>',
      ),
      'ppt/slides/slide1.xml': strToU8(SLIDE(slidePadding)),
      ...extra,
    },
    { level: 9 },
  );
}

/** Sets every entry's declared uncompressed size to `size` (local headers and central directory). */
function lie(zip: Uint8Array, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let at = 0; at + 4 <= out.length; at++) {
    const signature = view.getUint32(at, true);
    if (signature === 0x04034b50) view.setUint32(at + 22, size, true);
    if (signature === 0x02014b50) view.setUint32(at + 24, size, true);
  }
  return out;
}

async function child(mode: string, file: string): Promise<void> {
  const buffer = readFileSync(file);
  // Loading the documents lib (and what it imports) is the same in every mode: measure from here.
  writeFileSync('/proc/self/clear_refs', '5');
  let outcome = 'ok';
  try {
    if (mode === 'unzipSync') unzipSync(new Uint8Array(buffer));
    else if (mode === 'budget') await parseDocument(buffer, 'pptx');
  } catch (error) {
    outcome = `${(error as Error).name}: ${(error as Error).message.slice(0, 110)}`;
  }
  process.stdout.write(
    JSON.stringify({ peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024), outcome }),
  );
}

const BOMBS = [
  'unused 1 GiB entry, honest sizes',
  'unused 1 GiB entry, lying sizes',
  'slide + 400 MiB spaces, lying sizes',
];
const fileOf = (dir: string, name: string) => path.join(dir, `${name.replace(/\W+/g, '-')}.pptx`);

/** Writes the bombs (in a child, so the measuring parent never holds the gigabyte they are made from). */
function make(dir: string): void {
  const honest = pptx({ 'ppt/media/unused.bin': new Uint8Array(1024 * MiB) });
  const bytes = [honest, lie(honest, 4), lie(pptx({}, 400 * MiB), 4)];
  BOMBS.forEach((name, i) => writeFileSync(fileOf(dir, name), bytes[i]));
}

function main(): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bomb-'));
  execFileSync(process.execPath, ['--max-old-space-size=8192', __filename, 'make', dir]);
  const rows: string[] = [];
  for (const name of BOMBS) {
    const file = fileOf(dir, name);
    const size = readFileSync(file).length;
    for (const mode of ['baseline', 'unzipSync', 'budget']) {
      let result: { peakRssMiB: number; outcome: string };
      try {
        const out = execFileSync(process.execPath, ['--max-old-space-size=4096', __filename, mode, file], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        });
        result = JSON.parse(out) as typeof result;
      } catch (error) {
        result = { peakRssMiB: NaN, outcome: `child died: ${(error as Error).message.slice(0, 80)}` };
      }
      rows.push(
        `| ${name} | ${(size / MiB).toFixed(2)} MiB | ${mode} | ${result.peakRssMiB} MiB | ${result.outcome} |`,
      );
    }
  }
  console.log(['| bomb | file | parser | peak RSS | outcome |', '|---|---|---|---|---|', ...rows].join('\n'));
}

if (process.argv[2] === 'make') make(process.argv[3]);
else if (process.argv[2]) void child(process.argv[2], process.argv[3]);
else main();
