import { XMLParser } from 'fast-xml-parser';
import mammoth from 'mammoth';
import { htmlToBlocks } from './html-blocks.util';
import { ExpansionMeter } from './parse-budget';
import { clean, ParsedBlock } from './parsed-block';
import { ZipBudgetReader } from './zip-budget-reader';

/**
 * The parts mammoth reads: the package's content types and relationships and the main document's
 * sibling parts (document, styles, numbering, notes, comments). Media is read lazily and never,
 * since images are not inlined.
 */
const isDocxTextPart = (name: string) =>
  name === '[Content_Types].xml' || name.endsWith('.rels') || /^word\/[^/]+\.xml$/.test(name);

/**
 * DOCX -> HTML (mammoth keeps image alt text) -> blocks. Images are not inlined. mammoth reads the
 * zip itself, so the parts it reads are first inflated under the budget.
 */
export async function docxToBlocks(buffer: Buffer, meter: ExpansionMeter): Promise<ParsedBlock[]> {
  const zip = ZipBudgetReader.open(buffer, meter);
  zip.verify(zip.names.filter(isDocxTextPart));
  const { value } = await mammoth.convertToHtml(
    { buffer },
    { convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })) },
  );
  return htmlToBlocks(value);
}

type XmlNode = Record<string, unknown> & { ':@'?: Record<string, string> };

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  preserveOrder: true,
  trimValues: false,
  processEntities: true,
  parseTagValue: false,
});

const tagOf = (node: XmlNode): string | undefined => Object.keys(node).find((key) => key !== ':@');
const attrsOf = (node: XmlNode | null | undefined): Record<string, string> => node?.[':@'] ?? {};
const childrenOf = (node: XmlNode, tag: string): XmlNode[] => (node[tag] as XmlNode[] | undefined) ?? [];

function findFirst(nodes: XmlNode[], name: string): XmlNode | null {
  for (const node of nodes) {
    const tag = tagOf(node);
    if (!tag) continue;
    if (tag === name) return node;
    const kids = node[tag];
    if (Array.isArray(kids)) {
      const found = findFirst(kids as XmlNode[], name);
      if (found) return found;
    }
  }
  return null;
}

function textOf(nodes: XmlNode[]): string {
  let text = '';
  for (const node of nodes) {
    const tag = tagOf(node);
    if (!tag) continue;
    if (tag === '#text') text += String(node[tag]);
    else if (tag === 'a:br') text += '\n';
    else if (Array.isArray(node[tag])) text += textOf(node[tag] as XmlNode[]);
  }
  return text;
}

interface SlideContent {
  paragraphs: string[];
  tables: string[][][];
  images: string[];
}

function collectSlide(nodes: XmlNode[], out: SlideContent, cell?: string[]): void {
  for (const node of nodes) {
    const tag = tagOf(node);
    if (!tag) continue;
    const kids = childrenOf(node, tag);
    if (tag === 'a:p') {
      const text = clean(textOf(kids));
      if (text) (cell ?? out.paragraphs).push(text);
    } else if (tag === 'a:tbl') {
      const rows = kids
        .filter((row) => tagOf(row) === 'a:tr')
        .map((row) =>
          childrenOf(row, 'a:tr')
            .filter((c) => tagOf(c) === 'a:tc')
            .map((c) => {
              const parts: string[] = [];
              collectSlide(childrenOf(c, 'a:tc'), out, parts);
              return parts.join(' ');
            }),
        );
      if (rows.length > 0) out.tables.push(rows);
    } else if (tag === 'p:pic') {
      const props = attrsOf(findFirst(kids, 'p:cNvPr'));
      const alt = clean(props.descr ?? props.title ?? '');
      if (alt) out.images.push(alt);
    } else if (Array.isArray(kids)) {
      collectSlide(kids, out, cell);
    }
  }
}

function resolvePart(base: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = base.split('/').slice(0, -1);
  for (const segment of target.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.') parts.push(segment);
  }
  return parts.join('/');
}

function relationships(zip: ZipBudgetReader, part: string) {
  const rels = zip.text(part.replace(/([^/]+)$/, '_rels/$1.rels'));
  if (rels === undefined) return [];
  const root = findFirst(xml.parse(rels) as XmlNode[], 'Relationships');
  return (root ? childrenOf(root, 'Relationships') : [])
    .filter((node) => tagOf(node) === 'Relationship')
    .map((node) => ({
      id: attrsOf(node).Id,
      type: attrsOf(node).Type ?? '',
      target: resolvePart(part, attrsOf(node).Target ?? ''),
    }));
}

/**
 * PPTX slides in presentation order: text, tables, picture alt text and speaker notes. Only the
 * presentation, its slides, their notes and the relationships between them are inflated.
 */
export function pptxToBlocks(buffer: Buffer, meter: ExpansionMeter): ParsedBlock[] {
  const zip = ZipBudgetReader.open(buffer, meter);
  const presentationXml = zip.text('ppt/presentation.xml');
  if (presentationXml === undefined)
    throw new Error('not a PowerPoint file: ppt/presentation.xml is missing');
  const presentation = xml.parse(presentationXml) as XmlNode[];
  const presentationRels = relationships(zip, 'ppt/presentation.xml');
  const list = findFirst(presentation, 'p:sldIdLst');
  const slideIds = (list ? childrenOf(list, 'p:sldIdLst') : [])
    .filter((node) => tagOf(node) === 'p:sldId')
    .map((node) => attrsOf(node)['r:id']);
  const blocks: ParsedBlock[] = [];
  slideIds.forEach((relId, index) => {
    const slide = index + 1;
    const slidePath = presentationRels.find((rel) => rel.id === relId)?.target;
    const slideXml = slidePath ? zip.text(slidePath) : undefined;
    if (!slidePath || slideXml === undefined) return;
    const content: SlideContent = { paragraphs: [], tables: [], images: [] };
    collectSlide(xml.parse(slideXml) as XmlNode[], content);
    const [title, ...rest] = content.paragraphs;
    if (title) blocks.push({ kind: 'heading', level: 2, text: title, slide });
    for (const text of rest) blocks.push({ kind: 'paragraph', text, slide });
    for (const rows of content.tables)
      blocks.push({ kind: 'table', header: rows[0], rows: rows.slice(1), slide });
    for (const alt of content.images) blocks.push({ kind: 'image', text: alt, slide });
    const notesRel = relationships(zip, slidePath).find((rel) => rel.type.endsWith('/notesSlide'));
    const notesXml = notesRel ? zip.text(notesRel.target) : undefined;
    if (notesXml !== undefined) {
      const notes: SlideContent = { paragraphs: [], tables: [], images: [] };
      const tree = findFirst(xml.parse(notesXml) as XmlNode[], 'p:spTree');
      for (const shape of tree ? childrenOf(tree, 'p:spTree') : []) {
        if (tagOf(shape) !== 'p:sp') continue;
        const placeholder = findFirst(childrenOf(shape, 'p:sp'), 'p:ph');
        if (placeholder && attrsOf(placeholder).type === 'body')
          collectSlide(childrenOf(shape, 'p:sp'), notes);
      }
      if (notes.paragraphs.length > 0)
        blocks.push({ kind: 'paragraph', text: `Notes: ${notes.paragraphs.join(' ')}`, slide });
    }
  });
  return blocks;
}
