import { Unzlib } from 'fflate';
import { DocumentProcessingError } from '../document-errors';
import { ExpansionMeter } from './parse-budget';

/** Compressed bytes handed to the first inflater at a time (see zip-budget-reader.ts). */
const PUSH_BYTES = 1024;
/** How far before `stream` the stream's dictionary is looked for. */
const DICTIONARY_WINDOW = 4096;

const STREAM = Buffer.from('stream');
const END_STREAM = Buffer.from('endstream');

/** The number of Flate filters a stream dictionary applies (`/FlateDecode`, or `/Fl` in inline form). */
function flateFilters(dictionary: string): number {
  const filters = [...dictionary.matchAll(/\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/g)];
  const filter = filters[filters.length - 1];
  if (!filter) return 0;
  return (filter[1].match(/\/(FlateDecode|Fl)\b/g) ?? []).length;
}

/**
 * Inflates one stream through `layers` chained Flate filters, counting every layer's output: a
 * stream filtered twice (`[/FlateDecode /FlateDecode]`) multiplies the ratio, so every layer's
 * ratio is taken against the bytes stored in the file. Output is discarded.
 */
function meterStream(data: Uint8Array, layers: number, meter: ExpansionMeter, name: string): void {
  let sink: (piece: Uint8Array, final: boolean) => void = () => undefined;
  for (let layer = layers; layer >= 1; layer--) {
    const next = sink;
    const count = meter.entry(`${name} (filter ${layer})`, data.length);
    const inflater = new Unzlib((piece, final) => {
      count(piece.length);
      next(piece, final);
    });
    sink = (piece, final) => inflater.push(piece, final);
  }
  for (let offset = 0; offset < data.length; offset += PUSH_BYTES) {
    const end = Math.min(offset + PUSH_BYTES, data.length);
    sink(data.subarray(offset, end), end === data.length);
  }
}

/**
 * Inflates every Flate stream of a PDF under the budget before pdf.js sees it, so a stream that
 * expands past DOCUMENTS_PARSE_MAX_ENTRY_BYTES (or all of them past ..._EXPANDED_BYTES) fails the
 * document instead of pdf.js inflating it whole. A stream that does not inflate is left to pdf.js,
 * which skips or repairs damaged streams.
 */
export function meterPdfStreams(pdf: Buffer, meter: ExpansionMeter): void {
  let index = 0;
  for (let at = pdf.indexOf(STREAM); at !== -1; at = pdf.indexOf(STREAM, at + STREAM.length)) {
    if (at >= 3 && pdf.subarray(at - 3, at).toString('latin1') === 'end') continue;
    let start = at + STREAM.length;
    if (pdf[start] === 0x0d) start++;
    if (pdf[start] !== 0x0a) continue;
    start++;
    const dictionary = pdf.subarray(Math.max(0, at - DICTIONARY_WINDOW), at).toString('latin1');
    const layers = flateFilters(dictionary.slice(dictionary.lastIndexOf(' obj') + 1));
    const end = pdf.indexOf(END_STREAM, start);
    if (end === -1) break;
    index++;
    if (layers > 0) {
      try {
        meterStream(pdf.subarray(start, end), layers, meter, `PDF stream ${index}`);
      } catch (error) {
        if (error instanceof DocumentProcessingError) throw error;
      }
    }
    at = end;
  }
}
