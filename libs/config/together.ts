/**
 * Settings that are wrong together, checked in a process that reads all of them (with the other
 * settings, so that one attempt shows every problem). In a process that reads only some, the
 * others belong to another process and are not known here.
 */
export function togetherProblems(
  values: { DOWNLOAD_DELIVERY: string | undefined; S3_ENDPOINT: string | undefined },
  reads: (name: keyof typeof values) => boolean,
): string[] {
  const problems: string[] = [];
  // Redirect mode sends clients to the package store; the embedded one (S3_ENDPOINT unset) is
  // for this host's processes alone (docs/operations.md, The embedded package store).
  if (
    reads('DOWNLOAD_DELIVERY') &&
    reads('S3_ENDPOINT') &&
    values.DOWNLOAD_DELIVERY === 'redirect' &&
    values.S3_ENDPOINT === undefined
  ) {
    problems.push(
      'DOWNLOAD_DELIVERY: redirect needs S3_ENDPOINT (MinIO or S3); the embedded package ' +
        'store is for trials and development on one machine and sends no client to itself',
    );
  }
  return problems;
}
