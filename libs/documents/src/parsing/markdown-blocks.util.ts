import MarkdownIt from 'markdown-it';
import { clean, ParsedBlock } from './parsed-block';

const markdown = new MarkdownIt({ html: false });
type Token = ReturnType<MarkdownIt['parse']>[number];

function inlineText(token: Token | undefined): string {
  return (token?.children ?? [])
    .map((child) => {
      if (child.type === 'image') return '';
      if (child.type === 'softbreak' || child.type === 'hardbreak') return '\n';
      return child.content;
    })
    .join('');
}

/** Markdown via markdown-it's token stream: headings, paragraphs, list items, tables, code, image alt. */
export function markdownToBlocks(source: string): ParsedBlock[] {
  const tokens = markdown.parse(source, {});
  const blocks: ParsedBlock[] = [];
  let listDepth = 0;
  let table: string[][] | null = null;
  let row: string[] | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    switch (token.type) {
      case 'heading_open': {
        const text = clean(inlineText(tokens[i + 1]));
        if (text) blocks.push({ kind: 'heading', level: Number(token.tag.slice(1)), text });
        i += 2;
        break;
      }
      case 'list_item_open':
        listDepth++;
        break;
      case 'list_item_close':
        listDepth--;
        break;
      case 'paragraph_open': {
        const inline = tokens[i + 1];
        const text = inlineText(inline).trim();
        if (text) blocks.push({ kind: listDepth > 0 ? 'list_item' : 'paragraph', text });
        for (const child of inline?.children ?? []) {
          if (child.type === 'image' && clean(child.content))
            blocks.push({ kind: 'image', text: clean(child.content) });
        }
        i += 2;
        break;
      }
      case 'table_open':
        table = [];
        break;
      case 'tr_open':
        row = [];
        break;
      case 'th_open':
      case 'td_open':
        row?.push(clean(inlineText(tokens[i + 1])));
        break;
      case 'tr_close':
        if (row) table?.push(row);
        row = null;
        break;
      case 'table_close':
        if (table && table.length > 0) blocks.push({ kind: 'table', header: table[0], rows: table.slice(1) });
        table = null;
        break;
      case 'fence':
      case 'code_block':
        if (token.content.trim()) blocks.push({ kind: 'code', text: token.content.trimEnd() });
        break;
      default:
        break;
    }
  }
  return blocks;
}
