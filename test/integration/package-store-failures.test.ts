import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createVersion, packageBytes, upload, uploadFile } from '../support/packages.js';
import { bootSystem, type TestSystem } from '../support/system.js';

/**
 * docs/operations.md, The embedded package store: a request the store fails on its side is
 * answered INTERNAL_ERROR, and the download service logs the store's own cause (s3rver, silent,
 * tells nobody), so an operator or a failed test can read why.
 */

let system: TestSystem;
let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'pkgs-failing-'));
  system = await bootSystem({ STORAGE_DIR: directory });
});
afterAll(async () => {
  await system?.stop();
  await rm(directory, { recursive: true, force: true });
});

test("an upload the store fails is INTERNAL_ERROR, with the store's cause logged", async () => {
  const product = await system.transport.call('update-catalog.createProduct', {
    title: 'Store failures',
  });
  const version = await createVersion(system, product.id, '1.0.0');
  // Where the store keeps multipart uploads in progress is a file: it cannot start one.
  const uploads = path.join(directory, system.config.S3_BUCKET, '._S3rver_uploads');
  await rm(uploads, { recursive: true, force: true });
  await mkdir(path.dirname(uploads), { recursive: true });
  await writeFile(uploads, 'not a folder');

  const res = await upload(system, version.id, packageBytes(100));
  expect([res.status, res.body.error?.code]).toEqual([500, 'INTERNAL_ERROR']);
  const logged = system.loggedErrors().map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(logged).toContainEqual(
    expect.objectContaining({
      msg: 'embedded package storage failed a request',
      method: 'POST',
      err: expect.objectContaining({ message: expect.stringMatching(/ENOTDIR|EEXIST/) }),
    }),
  );
  // The helpers of the tests say it when an upload they expected fails.
  await expect(uploadFile(system, version.id, packageBytes(100))).rejects.toThrow(
    /upload: 500[^]*embedded package storage failed a request/,
  );
});
