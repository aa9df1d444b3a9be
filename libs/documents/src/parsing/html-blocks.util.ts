import { HTMLElement, Node, NodeType, parse } from 'node-html-parser';
import { clean, ParsedBlock } from './parsed-block';

const SKIPPED = new Set(['script', 'style', 'noscript', 'head', 'template', 'svg']);

function tableBlock(table: HTMLElement): ParsedBlock | undefined {
  const rows = table
    .querySelectorAll('tr')
    .map((tr) => tr.querySelectorAll('th,td').map((cell) => clean(cell.text)))
    .filter((row) => row.some((cell) => cell !== ''));
  if (rows.length === 0) return undefined;
  const caption = table.querySelector('caption');
  return {
    kind: 'table',
    header: rows[0],
    rows: rows.slice(1),
    caption: caption ? clean(caption.text) : undefined,
  };
}

function imageBlock(img: HTMLElement): ParsedBlock | undefined {
  const alt = clean(img.getAttribute('alt') ?? img.getAttribute('title') ?? '');
  return alt ? { kind: 'image', text: alt } : undefined;
}

/** Headings, paragraphs, list items, tables, code and image alt text, in document order. */
export function htmlToBlocks(html: string): ParsedBlock[] {
  const root = parse(html, {
    comment: false,
    blockTextElements: { script: false, style: false, noscript: false, pre: true },
  });
  const blocks: ParsedBlock[] = [];
  const push = (block: ParsedBlock | undefined) => {
    if (block) blocks.push(block);
  };
  const walk = (element: Node): void => {
    let inline = '';
    const flushInline = () => {
      const text = clean(inline);
      if (text) blocks.push({ kind: 'paragraph', text });
      inline = '';
    };
    for (const node of element.childNodes) {
      if (node.nodeType !== NodeType.ELEMENT_NODE) {
        inline += ` ${node.text}`;
        continue;
      }
      const el = node as HTMLElement;
      const tag = el.tagName.toLowerCase();
      if (SKIPPED.has(tag)) continue;
      if (/^h[1-6]$/.test(tag)) {
        flushInline();
        const text = clean(el.text);
        if (text) blocks.push({ kind: 'heading', level: Number(tag[1]), text });
      } else if (tag === 'p' || tag === 'figcaption' || tag === 'dt' || tag === 'dd') {
        flushInline();
        const text = clean(el.text);
        if (text) blocks.push({ kind: 'paragraph', text });
        el.querySelectorAll('img').forEach((img) => push(imageBlock(img)));
      } else if (tag === 'li') {
        flushInline();
        const own = el.childNodes
          .filter(
            (child) => !(child instanceof HTMLElement && ['ul', 'ol'].includes(child.tagName.toLowerCase())),
          )
          .map((child) => child.text)
          .join(' ');
        const text = clean(own);
        if (text) blocks.push({ kind: 'list_item', text });
        el.querySelectorAll('img').forEach((img) => push(imageBlock(img)));
        el.childNodes
          .filter(
            (child) => child instanceof HTMLElement && ['ul', 'ol'].includes(child.tagName.toLowerCase()),
          )
          .forEach(walk);
      } else if (tag === 'table') {
        flushInline();
        push(tableBlock(el));
      } else if (tag === 'img') {
        flushInline();
        push(imageBlock(el));
      } else if (tag === 'pre') {
        flushInline();
        if (el.text.trim()) blocks.push({ kind: 'code', text: el.text.trimEnd() });
      } else if (
        ['br', 'span', 'a', 'strong', 'em', 'b', 'i', 'code', 'small', 'sub', 'sup', 'u'].includes(tag)
      ) {
        inline += ` ${el.text}`;
      } else {
        flushInline();
        walk(el);
      }
    }
    flushInline();
  };
  walk(root);
  return blocks;
}
