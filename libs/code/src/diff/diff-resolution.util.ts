import { createHash } from 'node:crypto';
import { applyPatch, parsePatch, reversePatch, type StructuredPatch } from 'diff';
import { ErrorKind } from '@app/platform';
import { CodeException, CodeExceptionCode } from '../code.exception';
import type { DiffFileInput } from '../code.types';

export interface DiffLimits {
  maxFileBytes: number;
  maxRequestBytes: number;
  maxFiles: number;
}

/** What a request does to one path, in order: the text it leaves there, or null (deleted). */
export interface ResolvedFile {
  path: string;
  text: string | null;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const byteLength = (text: string | null | undefined): number => (text ? Buffer.byteLength(text, 'utf8') : 0);

function tooLarge(message: string, limit: { key: string; limit: number; observed: number }): CodeException {
  return new CodeException(CodeExceptionCode.DIFF_TOO_LARGE, ErrorKind.PAYLOAD_TOO_LARGE, message, { limit });
}

/** Repository-relative path: forward slashes, no `..`, no leading slash, no NUL. */
export function normalizePath(raw: string): string {
  const path = raw.replace(/\\/g, '/').replace(/^\.\//, '');
  if (
    !path ||
    path.length > 1000 ||
    path.startsWith('/') ||
    path.includes('\0') ||
    path.split('/').some((part) => part === '..' || part === '')
  ) {
    throw CodeException.invalid(`"${raw.slice(0, 200)}" is not a repository-relative file path.`, {
      path: raw,
    });
  }
  return path;
}

export function checkRequestSize(
  files: DiffFileInput[] | undefined,
  unified: string | undefined,
  limits: DiffLimits,
): void {
  if (files) checkFileCount(files.length, limits);
  let total = byteLength(unified);
  for (const file of files ?? []) {
    const size = byteLength(file.after);
    if (size > limits.maxFileBytes) throw fileTooLarge(file.path, size, limits);
    total += size + byteLength(file.before);
  }
  if (total > limits.maxRequestBytes) {
    throw tooLarge(
      `The diff carries ${total} bytes of text; the limit is ${limits.maxRequestBytes} (CODE_MAX_REQUEST_BYTES).`,
      { key: 'CODE_MAX_REQUEST_BYTES', limit: limits.maxRequestBytes, observed: total },
    );
  }
}

/** The file cap, for either form: `files` entries, or the file sections of a unified diff. */
export function checkFileCount(count: number, limits: DiffLimits): void {
  if (count <= limits.maxFiles) return;
  throw tooLarge(`The diff has ${count} files; the limit is ${limits.maxFiles} (CODE_MAX_FILES_PER_DIFF).`, {
    key: 'CODE_MAX_FILES_PER_DIFF',
    limit: limits.maxFiles,
    observed: count,
  });
}

export function fileTooLarge(path: string, size: number, limits: DiffLimits): CodeException {
  return tooLarge(`${path} is ${size} bytes; the limit is ${limits.maxFileBytes} (CODE_MAX_FILE_BYTES).`, {
    key: 'CODE_MAX_FILE_BYTES',
    limit: limits.maxFileBytes,
    observed: size,
  });
}

const stripPrefix = (name: string | undefined): string | null => {
  if (!name || name === '/dev/null') return null;
  return name.replace(/^[ab]\//, '');
};

/** The paths a unified diff reads, so their stored texts can be loaded before applying it. */
export function parseUnified(unified: string): StructuredPatch[] {
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(unified);
  } catch (error) {
    throw CodeException.invalid(`The unified diff could not be parsed: ${(error as Error).message}`);
  }
  const real = patches.filter((p) => p.oldFileName || p.newFileName);
  if (real.length === 0) throw CodeException.invalid('The unified diff names no file.');
  return real;
}

/** Parses a unified diff and applies the file cap to its file sections (the same cap as `files`). */
export function parseUnifiedWithin(unified: string, limits: DiffLimits): StructuredPatch[] {
  const patches = parseUnified(unified);
  checkFileCount(patches.length, limits);
  return patches;
}

export function unifiedPaths(patches: StructuredPatch[]): string[] {
  const paths = new Set<string>();
  for (const patch of patches) {
    for (const name of [stripPrefix(patch.oldFileName), stripPrefix(patch.newFileName)])
      if (name) paths.add(normalizePath(name));
  }
  return [...paths];
}

export function requestPaths(files: DiffFileInput[]): string[] {
  const paths = new Set<string>();
  for (const file of files) {
    if (file.old_path) paths.add(normalizePath(file.old_path));
    paths.add(normalizePath(file.path));
  }
  return [...paths];
}

function hunkHeader(patch: StructuredPatch, index: number): string {
  const h = patch.hunks[index];
  return `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;
}

/**
 * Applies a unified diff to the working texts, in file order. A hunk that does not apply is a 409
 * naming the file and the hunk; a patch whose reverse applies cleanly was applied already and is
 * skipped (replaying a diff changes nothing).
 */
function applyUnified(patches: StructuredPatch[], working: Map<string, string | null>): void {
  for (const patch of patches) {
    const oldPath = stripPrefix(patch.oldFileName);
    const newPath = stripPrefix(patch.newFileName);
    const source = oldPath ? normalizePath(oldPath) : null;
    const target = newPath ? normalizePath(newPath) : null;
    const current = source ? (working.get(source) ?? null) : null;
    if (source && current === null && !patch.isCreate) {
      // Already applied: a deleted file that is gone, or a rename whose target holds the result.
      if (!target || (working.get(target) ?? null) !== null) continue;
      throw new CodeException(
        CodeExceptionCode.HUNK_DOES_NOT_APPLY,
        ErrorKind.CONFLICT,
        `${source} does not exist in the repository, so its diff cannot apply.`,
        { file: source },
      );
    }
    if (target && !source && (working.get(target) ?? null) !== null) {
      // A creation of a file that exists: applied already if the result is the same text.
      const created = applyPatch('', patch);
      if (created !== false && created === working.get(target)) continue;
    }
    const text = patch.hunks.length === 0 ? (current ?? '') : applyPatch(current ?? '', patch);
    if (text === false) {
      if (current !== null && patch.hunks.length > 0 && applyPatch(current, reversePatch(patch)) !== false)
        continue;
      let failing = patch.hunks.length - 1;
      for (let i = 0; i < patch.hunks.length; i++) {
        if (applyPatch(current ?? '', { ...patch, hunks: patch.hunks.slice(0, i + 1) }) === false) {
          failing = i;
          break;
        }
      }
      const file = target ?? source ?? '?';
      throw new CodeException(
        CodeExceptionCode.HUNK_DOES_NOT_APPLY,
        ErrorKind.CONFLICT,
        `Hunk ${failing + 1} (${hunkHeader(patch, failing)}) of ${file} does not apply to the stored text; nothing of this diff was applied.`,
        { file, hunk: failing + 1, header: hunkHeader(patch, failing) },
      );
    }
    if (source && source !== target) working.set(source, null);
    if (target) working.set(target, text);
  }
}

/** The text a file change leaves at its path, or null (deleted); undefined when it cannot tell. */
function resultOf(file: DiffFileInput): string | null | undefined {
  if (file.status === 'deleted') return null;
  return file.after ?? (file.status === 'renamed' ? file.before : undefined) ?? undefined;
}

/**
 * A change that carries `before` is applied only over that text: a stored text that differs (a
 * concurrent edit, a missed diff) is a 409 naming the file, unless the path already holds the
 * change's result (a replay).
 */
function checkBefore(
  file: DiffFileInput,
  path: string,
  working: Map<string, string | null>,
): 'apply' | 'skip' {
  if (typeof file.before !== 'string') return 'apply';
  const source = file.status === 'renamed' && file.old_path ? normalizePath(file.old_path) : path;
  const current = working.get(source) ?? null;
  if (current === file.before) return 'apply';
  const result = resultOf(file);
  const replayed =
    result !== undefined &&
    (working.get(path) ?? null) === result &&
    (source === path || (working.get(source) ?? null) === null);
  if (replayed) return 'skip';
  throw new CodeException(
    CodeExceptionCode.BEFORE_DOES_NOT_MATCH,
    ErrorKind.CONFLICT,
    current === null
      ? `${source} does not exist in the repository, but the change carries a "before" text; nothing of this diff was applied.`
      : `The stored text of ${source} differs from the change's "before" text (changed since); nothing of this diff was applied.`,
    {
      file: source,
      stored_sha256: current === null ? null : sha256(current),
      before_sha256: sha256(file.before),
    },
  );
}

function applyFiles(files: DiffFileInput[], working: Map<string, string | null>): void {
  for (const file of files) {
    const path = normalizePath(file.path);
    if (checkBefore(file, path, working) === 'skip') continue;
    switch (file.status) {
      case 'deleted':
        working.set(path, null);
        break;
      case 'added':
      case 'modified': {
        const text = file.after ?? null;
        if (text === null)
          throw CodeException.invalid(`${path} is ${file.status} but has no "after" text.`, { path });
        working.set(path, text);
        break;
      }
      case 'renamed': {
        if (!file.old_path)
          throw CodeException.invalid(`${path} is renamed but has no "old_path".`, { path });
        const from = normalizePath(file.old_path);
        const text = file.after ?? working.get(from) ?? file.before ?? working.get(path) ?? null;
        if (text === null)
          throw new CodeException(
            CodeExceptionCode.HUNK_DOES_NOT_APPLY,
            ErrorKind.CONFLICT,
            `${from} (renamed to ${path}) does not exist in the repository and the change has no "after" text.`,
            { file: from },
          );
        if (from !== path) working.set(from, null);
        working.set(path, text);
        break;
      }
    }
  }
}

/**
 * The texts a request leaves, given the stored ones: `files` set whole texts in request order,
 * `unified` patches the stored texts. Returns only the paths whose text changes, in request order
 * (a rename's old path before its new one).
 */
export function resolveChanges(
  request: { files?: DiffFileInput[]; unified?: string; patches?: StructuredPatch[] },
  stored: Map<string, string>,
  limits: DiffLimits,
): ResolvedFile[] {
  const working = new Map<string, string | null>(stored);
  const patches = request.files
    ? undefined
    : (request.patches ?? parseUnifiedWithin(request.unified ?? '', limits));
  if (request.files) applyFiles(request.files, working);
  else applyUnified(patches!, working);
  const requestOrder = request.files ? requestPaths(request.files) : unifiedPaths(patches!);
  const order = requestOrder.filter((path) => (stored.get(path) ?? null) !== (working.get(path) ?? null));
  return order.map((path) => {
    const text = working.get(path) ?? null;
    const size = byteLength(text);
    if (size > limits.maxFileBytes) throw fileTooLarge(path, size, limits);
    return { path, text };
  });
}
