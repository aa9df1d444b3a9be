import { strToU8, zipSync } from 'fflate';
import { DocumentBudgetError, DocumentProcessingError } from '../documents.exception';
import { DEFAULT_PARSE_BUDGET, ExpansionMeter, ParseBudget } from './parse-budget';
import { ZipBudgetReader } from './zip-budget-reader';

const MB = 1024 * 1024;
const budget = (overrides: Partial<ParseBudget> = {}) =>
  new ExpansionMeter({ ...DEFAULT_PARSE_BUDGET, ...overrides });

/** Rewrites the uncompressed size of every entry, in the local headers and the central directory. */
function lieAboutSizes(zip: Uint8Array, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let at = 0; at + 4 <= out.length; at++) {
    const signature = view.getUint32(at, true);
    if (signature === 0x04034b50) view.setUint32(at + 22, size, true);
    if (signature === 0x02014b50) view.setUint32(at + 24, size, true);
  }
  return out;
}

const limitOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DocumentBudgetError) return error.limit.key;
    throw error;
  }
  throw new Error('no budget error');
};

describe('ZipBudgetReader', () => {
  it('reads the entries it is asked for', () => {
    const zip = zipSync({ 'a.xml': strToU8('<a>hello</a>'), 'dir/b.xml': strToU8('<b/>') });
    const reader = ZipBudgetReader.open(zip, budget());
    expect(reader.names.sort()).toEqual(['a.xml', 'dir/b.xml']);
    expect(reader.text('a.xml')).toBe('<a>hello</a>');
    expect(reader.text('missing.xml')).toBeUndefined();
  });

  it('reads stored (uncompressed) entries', () => {
    const zip = zipSync({ 'a.txt': [strToU8('plain'), { level: 0 }] });
    expect(ZipBudgetReader.open(zip, budget()).text('a.txt')).toBe('plain');
  });

  it('refuses an archive with more entries than allowed, from the central directory', () => {
    const files = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}.xml`, strToU8('x')]));
    expect(limitOf(() => ZipBudgetReader.open(zipSync(files), budget({ maxZipEntries: 10 })))).toBe(
      'DOCUMENTS_PARSE_MAX_ZIP_ENTRIES',
    );
  });

  it('refuses an entry whose declared size is over the limit without inflating it', () => {
    const zip = zipSync({ 'big.xml': new Uint8Array(3 * MB) });
    expect(limitOf(() => ZipBudgetReader.open(zip, budget({ maxEntryBytes: 2 * MB })))).toBe(
      'DOCUMENTS_PARSE_MAX_ENTRY_BYTES',
    );
  });

  it('refuses a declared total over the limit even when no entry is read', () => {
    const zip = zipSync({ 'a.bin': new Uint8Array(2 * MB), 'b.bin': new Uint8Array(2 * MB) });
    expect(
      limitOf(() => ZipBudgetReader.open(zip, budget({ maxExpandedBytes: 3 * MB, maxRatio: 100_000 }))),
    ).toBe('DOCUMENTS_PARSE_MAX_EXPANDED_BYTES');
  });

  it('refuses a declared compression ratio over the limit', () => {
    const zip = zipSync({ 'zeros.xml': new Uint8Array(4 * MB) });
    expect(limitOf(() => ZipBudgetReader.open(zip, budget({ maxRatio: 200 })))).toBe(
      'DOCUMENTS_PARSE_MAX_RATIO',
    );
  });

  it('counts the bytes actually inflated when the declared size lies', () => {
    const zip = lieAboutSizes(zipSync({ 'bomb.xml': new Uint8Array(8 * MB) }), 100);
    const reader = ZipBudgetReader.open(zip, budget({ maxEntryBytes: 2 * MB, maxRatio: 100_000 }));
    expect(limitOf(() => reader.read('bomb.xml'))).toBe('DOCUMENTS_PARSE_MAX_ENTRY_BYTES');
  });

  it('stops a lying entry at the ratio limit', () => {
    const zip = lieAboutSizes(zipSync({ 'bomb.xml': new Uint8Array(8 * MB) }), 100);
    const reader = ZipBudgetReader.open(zip, budget());
    expect(limitOf(() => reader.verify(['bomb.xml']))).toBe('DOCUMENTS_PARSE_MAX_RATIO');
  });

  it('counts the total over all the entries read', () => {
    const files = Object.fromEntries(
      Array.from({ length: 4 }, (_, i) => [`part${i}.xml`, strToU8('x'.repeat(MB))]),
    );
    const zip = lieAboutSizes(zipSync(files), 10);
    const reader = ZipBudgetReader.open(zip, budget({ maxExpandedBytes: 3 * MB, maxRatio: 100_000 }));
    expect(limitOf(() => reader.verify(reader.names))).toBe('DOCUMENTS_PARSE_MAX_EXPANDED_BYTES');
  });

  it('does not inflate entries nobody reads', () => {
    const zip = lieAboutSizes(zipSync({ 'bomb.bin': new Uint8Array(8 * MB), 'a.xml': strToU8('<a/>') }), 4);
    const reader = ZipBudgetReader.open(zip, budget({ maxEntryBytes: 2 * MB }));
    expect(reader.text('a.xml')).toBe('<a/>');
  });

  it('reports a damaged archive as corrupt, not as a crash', () => {
    expect(() => ZipBudgetReader.open(strToU8('not a zip at all, just text'), budget())).toThrow(
      DocumentProcessingError,
    );
  });
});
