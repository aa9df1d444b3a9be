import { Inflate, strFromU8 } from 'fflate';
import { DocumentProcessingError, DocumentsExceptionCode } from '../document-errors';
import { ExpansionMeter, overBudget, RATIO_FLOOR_BYTES } from './parse-budget';

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  declaredSize: number;
  localHeaderOffset: number;
}

/** Compressed bytes handed to the inflater at a time: one push expands to at most ~1 MB x 1032. */
const PUSH_BYTES = 1024;
const U32_MAX = 0xffffffff;
const U16_MAX = 0xffff;

const corrupt = (why: string) =>
  new DocumentProcessingError(
    DocumentsExceptionCode.DOCUMENT_CORRUPT,
    `The zip archive is damaged: ${why}.`,
    false,
  );

/**
 * Reads an OOXML zip entry by entry under a budget, instead of inflating every entry up front
 * (`unzipSync`). Opening reads only the central directory and rejects an archive whose entry count,
 * declared sizes or declared ratios exceed the budget; `read` inflates one entry, streaming, and
 * counts the bytes it actually produces, so an entry that lies about its size stops at the limit.
 */
export class ZipBudgetReader {
  private readonly entries = new Map<string, ZipEntry>();

  private constructor(
    private readonly data: Uint8Array,
    private readonly meter: ExpansionMeter,
  ) {}

  static open(data: Uint8Array, meter: ExpansionMeter): ZipBudgetReader {
    const reader = new ZipBudgetReader(data, meter);
    reader.readCentralDirectory();
    return reader;
  }

  get names(): string[] {
    return [...this.entries.keys()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The entry's bytes, inflated under the budget; undefined when the archive has no such entry. */
  read(name: string): Uint8Array | undefined {
    const pieces: Uint8Array[] = [];
    if (!this.inflate(name, (piece) => pieces.push(piece))) return undefined;
    if (pieces.length === 1) return pieces[0];
    const out = new Uint8Array(pieces.reduce((sum, p) => sum + p.length, 0));
    let offset = 0;
    for (const piece of pieces) {
      out.set(piece, offset);
      offset += piece.length;
    }
    return out;
  }

  text(name: string): string | undefined {
    const bytes = this.read(name);
    return bytes ? strFromU8(bytes) : undefined;
  }

  /**
   * Inflates the entries and throws away the bytes: proves their real sizes are within the budget
   * before a library that reads the zip itself (mammoth) inflates them again.
   */
  verify(names: string[]): void {
    for (const name of names) this.inflate(name, () => undefined);
  }

  private inflate(name: string, sink: (piece: Uint8Array) => void): boolean {
    const entry = this.entries.get(name);
    if (!entry) return false;
    const start = this.dataStart(entry);
    const compressed = this.data.subarray(start, start + entry.compressedSize);
    const count = this.meter.entry(name, entry.compressedSize);
    if (entry.method === 0) {
      count(compressed.length);
      sink(compressed);
      return true;
    }
    if (entry.method !== 8) throw corrupt(`${name} uses compression method ${entry.method}`);
    const inflater = new Inflate((piece) => {
      count(piece.length);
      sink(piece);
    });
    try {
      for (let offset = 0; offset < compressed.length; offset += PUSH_BYTES) {
        const end = Math.min(offset + PUSH_BYTES, compressed.length);
        inflater.push(compressed.subarray(offset, end), end === compressed.length);
      }
      if (compressed.length === 0) inflater.push(new Uint8Array(0), true);
    } catch (error) {
      if (error instanceof DocumentProcessingError) throw error;
      throw corrupt(`${name} does not inflate (${(error as Error).message})`);
    }
    return true;
  }

  private dataStart(entry: ZipEntry): number {
    const view = this.view;
    const at = entry.localHeaderOffset;
    if (at + 30 > this.data.length || view.getUint32(at, true) !== 0x04034b50)
      throw corrupt(`no local header for ${entry.name}`);
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    if (start + entry.compressedSize > this.data.length) throw corrupt(`${entry.name} is truncated`);
    return start;
  }

  private get view(): DataView {
    return new DataView(this.data.buffer, this.data.byteOffset, this.data.byteLength);
  }

  private readCentralDirectory(): void {
    const { data, view } = this;
    const budget = this.meter.budget;
    let eocd = data.length - 22;
    while (eocd >= 0 && view.getUint32(eocd, true) !== 0x06054b50) {
      if (data.length - eocd > 22 + U16_MAX) break;
      eocd--;
    }
    if (eocd < 0 || view.getUint32(eocd, true) !== 0x06054b50) throw corrupt('no end of central directory');
    let count = view.getUint16(eocd + 10, true);
    let offset = view.getUint32(eocd + 16, true);
    if (
      (count === U16_MAX || offset === U32_MAX) &&
      eocd >= 20 &&
      view.getUint32(eocd - 20, true) === 0x07064b50
    ) {
      const zip64 = Number(view.getBigUint64(eocd - 12, true));
      if (zip64 + 56 > data.length || view.getUint32(zip64, true) !== 0x06064b50)
        throw corrupt('bad zip64 record');
      count = Number(view.getBigUint64(zip64 + 32, true));
      offset = Number(view.getBigUint64(zip64 + 48, true));
    }
    if (count > budget.maxZipEntries)
      throw overBudget(budget, 'maxZipEntries', count, 'The number of entries in the archive');
    let declaredTotal = 0;
    for (let i = 0; i < count; i++) {
      if (offset + 46 > data.length || view.getUint32(offset, true) !== 0x02014b50)
        throw corrupt('bad central directory entry');
      const flags = view.getUint16(offset + 8, true);
      const nameLength = view.getUint16(offset + 28, true);
      const extraLength = view.getUint16(offset + 30, true);
      const commentLength = view.getUint16(offset + 32, true);
      const name = strFromU8(data.subarray(offset + 46, offset + 46 + nameLength));
      const entry: ZipEntry = {
        name,
        method: view.getUint16(offset + 10, true),
        compressedSize: view.getUint32(offset + 20, true),
        declaredSize: view.getUint32(offset + 24, true),
        localHeaderOffset: view.getUint32(offset + 42, true),
      };
      this.applyZip64(entry, offset + 46 + nameLength, extraLength);
      if (flags & 1) throw corrupt(`${name} is encrypted`);
      offset += 46 + nameLength + extraLength + commentLength;
      this.checkDeclared(entry);
      declaredTotal += entry.declaredSize;
      if (declaredTotal > budget.maxExpandedBytes)
        throw overBudget(
          budget,
          'maxExpandedBytes',
          declaredTotal,
          'The declared expanded size of the archive',
        );
      if (!name.endsWith('/')) this.entries.set(name, entry);
    }
  }

  /** Sizes and offset that did not fit 32 bits live, in this order, in the zip64 extra field. */
  private applyZip64(entry: ZipEntry, extraStart: number, extraLength: number): void {
    const view = this.view;
    for (let at = extraStart; at + 4 <= extraStart + extraLength;) {
      const id = view.getUint16(at, true);
      const size = view.getUint16(at + 2, true);
      if (id === 0x0001) {
        let field = at + 4;
        const next = () => {
          const value = Number(view.getBigUint64(field, true));
          field += 8;
          return value;
        };
        if (entry.declaredSize === U32_MAX) entry.declaredSize = next();
        if (entry.compressedSize === U32_MAX) entry.compressedSize = next();
        if (entry.localHeaderOffset === U32_MAX) entry.localHeaderOffset = next();
        return;
      }
      at += 4 + size;
    }
  }

  private checkDeclared(entry: ZipEntry): void {
    const budget = this.meter.budget;
    if (entry.declaredSize > budget.maxEntryBytes)
      throw overBudget(budget, 'maxEntryBytes', entry.declaredSize, `The declared size of ${entry.name}`);
    const ratio = Math.floor(entry.declaredSize / Math.max(entry.compressedSize, 1));
    if (entry.declaredSize > RATIO_FLOOR_BYTES && ratio > budget.maxRatio)
      throw overBudget(budget, 'maxRatio', ratio, `The declared compression ratio of ${entry.name}`);
  }
}
