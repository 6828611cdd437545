import { refused, type Refused } from '../../libs/contracts/index.js';

/**
 * Spec 4.5 after the access rules: the file of the version a caller gets (the rules of 4.4). A
 * product with no such file has nothing to download.
 */
export function fileToDownload<S extends { file: { filename: string } }>(
  selection: S | null,
  pinned: { filename: string } | null = null,
): { ok: true; selection: S } | Refused {
  if (pinned && selection?.file.filename !== pinned.filename) {
    return refused('NOT_FOUND', 'This file is not available for download.');
  }
  return selection === null
    ? refused('NOT_FOUND', 'This product has no file to download.')
    : { ok: true, selection };
}
