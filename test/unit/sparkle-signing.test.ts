import { jest } from '@jest/globals';
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { LicensingError } from '../../libs/contracts/index.js';
import { ConfigError, SparkleKey, loadConfig } from '../../libs/config/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { signStoredPackage } from '../../services/download/sparkle-signing.js';
import {
  signTimeoutMs,
  sparkleSignature,
} from '../../services/management/packages/upload-signature.js';

/**
 * The seller's Sparkle key (SPARKLE_PRIVATE_KEY or its file, docs/updaters/sparkle.md): read as
 * Sparkle's `generate_keys -x` writes it, it gives the app's SUPublicEDKey and signs as
 * `sign_update` does; the download service signs a stored package with it, bounded.
 */

// RFC 8032, 7.1, TEST 1 and TEST 2: Ed25519 is deterministic, so these are what any
// implementation (Sparkle's orlp/ed25519 among them) gives for this seed.
const SEED = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
const PUBLIC = Buffer.from(
  'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
  'hex',
);
const EMPTY_SIGNATURE =
  'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b';
const SEED_2 = Buffer.from(
  '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
  'hex',
);
const SIGNATURE_2 =
  '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00';

/**
 * The secret as generate_keys kept keys made before Sparkle 2.6: orlp/ed25519's 64-byte private
 * key (SHA-512 of the seed, its first half clamped), then the 32-byte public key.
 */
function olderFormat(seed: Buffer, publicKey: Buffer): Buffer {
  const expanded = createHash('sha512').update(seed).digest();
  expanded[0]! &= 248;
  expanded[31]! &= 127;
  expanded[31]! |= 64;
  return Buffer.concat([expanded, publicKey]);
}

function parsed(text: string): SparkleKey {
  const key = SparkleKey.parse(text);
  if (typeof key === 'string') throw new Error(key);
  return key;
}

describe('reading the key as generate_keys -x exports it', () => {
  test("a 32-byte seed (Sparkle 2.6 and later) gives Sparkle's SUPublicEDKey and signs as sign_update", () => {
    const key = parsed(SEED.toString('base64'));
    expect(key.publicKey).toBe(PUBLIC.toString('base64'));
    expect(Buffer.from(key.signature(Buffer.alloc(0)), 'base64').toString('hex')).toBe(
      EMPTY_SIGNATURE,
    );
    expect(
      Buffer.from(parsed(SEED_2.toString('base64')).signature(Buffer.from([0x72])), 'base64'),
    ).toEqual(Buffer.from(SIGNATURE_2, 'hex'));
  });

  test('the older 96-byte form gives the same public key and the same signatures', () => {
    const key = parsed(olderFormat(SEED, PUBLIC).toString('base64'));
    expect(key.publicKey).toBe(PUBLIC.toString('base64'));
    expect(Buffer.from(key.signature(Buffer.alloc(0)), 'base64').toString('hex')).toBe(
      EMPTY_SIGNATURE,
    );
    const message = randomBytes(1000);
    const seed = randomBytes(32);
    const fromSeed = parsed(seed.toString('base64'));
    const publicKey = Buffer.from(fromSeed.publicKey, 'base64');
    const older = parsed(olderFormat(seed, publicKey).toString('base64'));
    expect(older.signature(message)).toBe(fromSeed.signature(message));
  });

  test('a signature verifies with SUPublicEDKey against the signed bytes only', () => {
    const key = parsed(`${randomBytes(32).toString('base64')}\n`);
    const spki = Buffer.concat([
      Buffer.from('302a300506032b6570032100', 'hex'),
      Buffer.from(key.publicKey, 'base64'),
    ]);
    const publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    const bytes = randomBytes(4096);
    const signature = Buffer.from(key.signature(bytes), 'base64');
    expect(verify(null, bytes, publicKey, signature)).toBe(true);
    bytes[0]! ^= 1;
    expect(verify(null, bytes, publicKey, signature)).toBe(false);
  });

  test('what is not such a key is refused, saying what was expected, never showing it', () => {
    expect(SparkleKey.parse('not base64!')).toMatch(/generate_keys -x .*not base64/);
    expect(SparkleKey.parse(randomBytes(64).toString('base64'))).toMatch(/decodes to 64 bytes/);
    const mismatched = olderFormat(SEED, Buffer.from(PUBLIC).fill(7, 0, 1)).toString('base64');
    expect(SparkleKey.parse(mismatched)).toMatch(/public half is not that of its private half/);
  });
});

describe('SPARKLE_PRIVATE_KEY, or SPARKLE_PRIVATE_KEY_FILE', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sparkle-key-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const refusal = (env: NodeJS.ProcessEnv) => {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    return '';
  };

  test('the exported text, given as is or in a file; the settings never show the seed', () => {
    const file = path.join(dir, 'sparkle_private_key');
    writeFileSync(file, `${SEED.toString('base64')}\n`);
    const fromFile = loadConfig({ SPARKLE_PRIVATE_KEY_FILE: file });
    const given = loadConfig({ SPARKLE_PRIVATE_KEY: SEED.toString('base64') });
    for (const config of [fromFile, given]) {
      expect(config.SPARKLE_PRIVATE_KEY!.publicKey).toBe(PUBLIC.toString('base64'));
      const shown = JSON.stringify(config);
      expect(shown).not.toContain(SEED.toString('base64'));
      expect(shown).not.toContain(SEED.toString('hex'));
    }
    expect(loadConfig({}).SPARKLE_PRIVATE_KEY).toBeUndefined();
    expect(
      loadConfig({ SPARKLE_PRIVATE_KEY: '', SPARKLE_PRIVATE_KEY_FILE: '' }).SPARKLE_PRIVATE_KEY,
    ).toBeUndefined();
  });

  test('a key that is not one, or a file missing, empty or not a key, stops start-up naming what was set', () => {
    expect(refusal({ SPARKLE_PRIVATE_KEY: 'not a key' })).toMatch(
      /^Invalid configuration: SPARKLE_PRIVATE_KEY: must be a Sparkle EdDSA private key .*it is not base64$/,
    );
    const bad = path.join(dir, 'bad');
    writeFileSync(bad, 'hello');
    expect(refusal({ SPARKLE_PRIVATE_KEY_FILE: bad })).toMatch(
      /^Invalid configuration: SPARKLE_PRIVATE_KEY_FILE: must be a Sparkle EdDSA private key .*it decodes to 3 bytes$/,
    );
    const empty = path.join(dir, 'empty');
    writeFileSync(empty, '\n');
    expect(refusal({ SPARKLE_PRIVATE_KEY_FILE: empty })).toBe(
      'Invalid configuration: SPARKLE_PRIVATE_KEY_FILE: must name a file that is not empty',
    );
    expect(refusal({ SPARKLE_PRIVATE_KEY_FILE: path.join(dir, 'none') })).toBe(
      'Invalid configuration: SPARKLE_PRIVATE_KEY_FILE: must name a readable file (ENOENT)',
    );
  });

  test('setting both is refused: which key signs would be a guess', () => {
    const file = path.join(dir, 'both');
    writeFileSync(file, SEED_2.toString('base64'));
    expect(
      refusal({ SPARKLE_PRIVATE_KEY: SEED.toString('base64'), SPARKLE_PRIVATE_KEY_FILE: file }),
    ).toBe(
      'Invalid configuration: SPARKLE_PRIVATE_KEY_FILE: must not be set together with SPARKLE_PRIVATE_KEY',
    );
  });
});

describe('signing a stored package (download.signPackage)', () => {
  const key = parsed(SEED.toString('base64'));
  const bytes = randomBytes(3 * 1024 * 1024);
  const storage = {
    stat: async (objectKey: string) =>
      objectKey === 'packages/a/App.zip' ? { size: bytes.length, last_modified: new Date() } : null,
    read: async (_objectKey: string, start: number, length: number) =>
      Readable.from([bytes.subarray(start, start + 1000), bytes.subarray(start + 1000, length)]),
  };

  test('signs the bytes stored, read in chunks', async () => {
    const signature = await signStoredPackage(
      { storage, sparkleKey: key, maxBytes: bytes.length },
      'packages/a/App.zip',
    );
    expect(verify(null, bytes, key.verifier, Buffer.from(signature!, 'base64'))).toBe(true);
  });

  test('without a key nothing is read or signed', async () => {
    const read = jest.fn<(typeof storage)['read']>();
    expect(
      await signStoredPackage(
        { storage: { ...storage, read }, sparkleKey: undefined, maxBytes: bytes.length },
        'packages/a/App.zip',
      ),
    ).toBeNull();
    expect(read).not.toHaveBeenCalled();
  });

  test('an object over the limit is refused before it is read; a missing one is NOT_FOUND', async () => {
    const read = jest.fn<(typeof storage)['read']>();
    const over = signStoredPackage(
      { storage: { ...storage, read }, sparkleKey: key, maxBytes: bytes.length - 1 },
      'packages/a/App.zip',
    );
    await expect(over).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    await expect(over).rejects.toThrow(/over the 3145727 bytes that may be signed/);
    expect(read).not.toHaveBeenCalled();
    await expect(
      signStoredPackage({ storage, sparkleKey: key, maxBytes: bytes.length }, 'packages/b/x.zip'),
    ).rejects.toBeInstanceOf(LicensingError);
  });
});

describe('which uploads management has signed', () => {
  const received = (platform: 'darwin' | 'linux' | null, signature: string | null) => ({
    stored: {
      object_key: 'packages/a/App.zip',
      size: 50_000_000,
      sha256: 'a'.repeat(64),
      sha512: 'b'.repeat(128),
    },
    filename: 'App.zip',
    contentType: 'application/zip',
    planId: null,
    includeInUpdates: true,
    requiresEntitlement: null,
    platform,
    arch: null,
    signature,
    minimumSystemVersion: null,
  });

  test('a macOS upload without a signature, with a timeout suited to reading it', async () => {
    const call = jest.fn(async () => ({ signature: 'c2ln' }));
    const transport = { call } as unknown as Transport;
    expect(await sparkleSignature(transport, received('darwin', null))).toBe('c2ln');
    expect(call).toHaveBeenCalledWith(
      'download.signPackage',
      { object_key: 'packages/a/App.zip' },
      { timeoutMs: 30_000 },
    );
    expect(signTimeoutMs(2 * 1024 ** 3)).toBeGreaterThan(200_000);
    call.mockClear();
    expect(await sparkleSignature(transport, received('darwin', 'dXBsb2FkZWQ='))).toBe(
      'dXBsb2FkZWQ=',
    );
    expect(await sparkleSignature(transport, received('linux', null))).toBeNull();
    expect(await sparkleSignature(transport, received(null, null))).toBeNull();
    expect(call).not.toHaveBeenCalled();
  });
});
