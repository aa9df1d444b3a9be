import { ErrorKind } from '@app/platform';
import { DocumentFormat } from '../documents.types';
import { DocumentsException, DocumentsExceptionCode } from '../documents.exception';

const BY_CONTENT_TYPE: Record<string, DocumentFormat> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
};

const BY_EXTENSION: Record<string, DocumentFormat> = {
  txt: 'text',
  text: 'text',
  log: 'text',
  md: 'markdown',
  markdown: 'markdown',
  html: 'html',
  htm: 'html',
  csv: 'csv',
  pdf: 'pdf',
  docx: 'docx',
  pptx: 'pptx',
  xlsx: 'xlsx',
};

export const CANONICAL_CONTENT_TYPE: Record<DocumentFormat, string> = {
  text: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
  csv: 'text/csv',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Content types that say nothing about the format, so the file extension decides. */
const GENERIC_TYPES = new Set([
  '',
  'application/octet-stream',
  'binary/octet-stream',
  'application/x-www-form-urlencoded',
]);

/**
 * The format of an upload from its declared content type, falling back to the file extension when
 * the type is missing or generic. Anything else is a 415 before a byte is stored.
 */
export function detectFormat(filename: string, contentType: string | undefined): DocumentFormat {
  const declared = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const byType = BY_CONTENT_TYPE[declared];
  if (byType) return byType;
  const extension = filename.includes('.') ? filename.split('.').pop()!.toLowerCase() : '';
  const byExtension = BY_EXTENSION[extension];
  if (GENERIC_TYPES.has(declared) && byExtension) return byExtension;
  throw new DocumentsException(
    DocumentsExceptionCode.UNSUPPORTED_DOCUMENT_TYPE,
    ErrorKind.UNSUPPORTED_MEDIA_TYPE,
    `Unsupported document type "${declared || extension || 'unknown'}". Supported: ${Object.keys(BY_EXTENSION).join(', ')} ` +
      `(${Object.keys(BY_CONTENT_TYPE).join(', ')}).`,
    { filename, content_type: contentType ?? null },
  );
}
