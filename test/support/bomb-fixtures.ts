import { strFromU8, strToU8, unzipSync, zipSync, zlibSync } from 'fflate';

const MB = 1024 * 1024;

/** A copy of an OOXML zip with `changes` applied: entries replaced or added, maximally compressed. */
export function patchZip(zip: Buffer, changes: Record<string, Uint8Array | string>): Buffer {
  const files: Record<string, Uint8Array> = unzipSync(new Uint8Array(zip));
  for (const [name, content] of Object.entries(changes))
    files[name] = typeof content === 'string' ? strToU8(content) : content;
  return Buffer.from(zipSync(files, { level: 9 }));
}

/** The entry's XML with `bytes` of whitespace before its root closes: valid, and deflates ~1000:1. */
export function padXmlEntry(zip: Buffer, name: string, bytes: number): Buffer {
  const xml = strFromU8(unzipSync(new Uint8Array(zip), { filter: (f) => f.name === name })[name]);
  const close = xml.lastIndexOf('</');
  return patchZip(zip, { [name]: xml.slice(0, close) + ' '.repeat(bytes) + xml.slice(close) });
}

/** `count` tiny extra entries. */
export function withManyEntries(zip: Buffer, count: number): Buffer {
  const extra = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`customXml/item${i}.xml`, '<a/>']),
  );
  return patchZip(zip, extra);
}

/**
 * A one-page PDF whose content stream shows `text`, followed by `padding` bytes of whitespace,
 * Flate-compressed: a few KB in the file, `padding` bytes once inflated.
 */
export function makeFlatePdf(text: string, padding: number): Buffer {
  const content = zlibSync(strToU8(`BT /F1 12 Tf 72 712 Td (${text}) Tj ET\n${' '.repeat(padding)}`), {
    level: 9,
  });
  const objects: Array<Buffer> = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from(
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    ),
    Buffer.concat([
      Buffer.from(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`),
      Buffer.from(content),
      Buffer.from('\nendstream'),
    ]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let length = parts[0].length;
  objects.forEach((body, i) => {
    offsets.push(length);
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(object);
    length += object.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root 1 0 R >>`,
    'startxref',
    String(length),
    '%%EOF',
  ].join('\n');
  parts.push(Buffer.from(xref + '\n'));
  return Buffer.concat(parts);
}

export const BOMB_BYTES = 12 * MB;
