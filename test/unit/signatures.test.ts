import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { verifyMessage } from 'http-message-signatures/lib/httpbis/index.js';
import { parseDictionary as referenceParseDictionary } from 'structured-headers';
import {
  answerComponents,
  contentDigestField,
  coveredComponents,
  fromBase64,
  jwkThumbprint,
  licenseFile,
  licenseFileSigningInput,
  publicJwk,
  readLicenseFile,
  readSignature,
  requestTarget,
  sha256OfContentDigest,
  signatureBase,
  signatureField,
  signingInput,
  toBase64,
  toBase64Url,
  verificationKeys,
  verifyEd25519,
  type LicenseFilePayload,
  type SignedRequest,
  type SignedResponse,
} from '../../libs/signatures/index.js';
import { parseDictionary, serializeInnerList } from '../../libs/signatures/structured-fields.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

/** RFC 9421 B.1.4, `test-key-ed25519`. */
const RFC_PRIVATE_KEY = `-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF
-----END PRIVATE KEY-----`;
const RFC_PUBLIC_X = 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs';

/** The signer the gateway uses: Node's Ed25519 over the signature base's bytes. */
const signWith = (pem: string, base: string) =>
  new Uint8Array(sign(null, Buffer.from(base, 'utf8'), createPrivateKey(pem)));

describe('RFC 9421 B.2.6: signing a request using ed25519, through the signer and the verifier', () => {
  const signatureInput =
    'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length")' +
    ';created=1618884473;keyid="test-key-ed25519"';
  const rfcBase = [
    '"date": Tue, 20 Apr 2021 02:07:55 GMT',
    '"@method": POST',
    '"@path": /foo',
    '"@authority": example.com',
    '"content-type": application/json',
    '"content-length": 18',
    '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
  ].join('\n');
  const rfcSignature =
    'wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==';
  const message: Record<string, string> = {
    date: 'Tue, 20 Apr 2021 02:07:55 GMT',
    '@method': 'POST',
    '@path': '/foo',
    '@authority': 'example.com',
    'content-type': 'application/json',
    'content-length': '18',
  };

  test('the signature base of the example is the RFC one', () => {
    const list = parseDictionary(signatureInput)?.get('sig-b26');
    if (list === undefined || !('items' in list)) throw new Error('no inner list');
    expect(signatureBase(list, (item) => message[String(item.value)] ?? null)).toBe(rfcBase);
  });

  test("the gateway's signer makes the RFC's signature, and the client's verifier accepts it", async () => {
    const signature = signWith(RFC_PRIVATE_KEY, rfcBase);
    expect(toBase64(signature)).toBe(rfcSignature);
    expect(await verifyEd25519({ x: RFC_PUBLIC_X }, utf8(rfcBase), signature)).toBe(true);
    const tampered = utf8(rfcBase.replace('/foo', '/bar'));
    expect(await verifyEd25519({ x: RFC_PUBLIC_X }, tampered, signature)).toBe(false);
  });

  test('the public key of the example is the one its private key gives', async () => {
    const jwk = createPublicKey(createPrivateKey(RFC_PRIVATE_KEY)).export({ format: 'jwk' });
    expect(jwk.x).toBe(RFC_PUBLIC_X);
    expect((await publicJwk(fromBase64(RFC_PUBLIC_X)!)).x).toBe(RFC_PUBLIC_X);
  });
});

describe('docs/api-decisions.md: the worked example of a signed answer is what the signer makes', () => {
  const doc = readFileSync(new URL('../../docs/api-decisions.md', import.meta.url), 'utf8');
  const section = doc.slice(
    doc.indexOf('- **Worked example**'),
    doc.indexOf('- **Keys and rotation**'),
  );
  const blocks = [...section.matchAll(/```\n([\s\S]*?)\n\s*```/g)].map((match) =>
    match[1]!.replace(/^ {2}/gm, ''),
  );
  const quoted = (before: string) => new RegExp(`${before}\`([^\`]+)\``).exec(section)?.[1];
  const field = (name: string) =>
    blocks[0]!
      .split('\n')
      .find((line) => line.startsWith(`${name}: `))!
      .slice(name.length + 2);

  test('the example names its form, body, nonce and time', () => {
    expect(blocks).toHaveLength(2);
    expect(quoted('the form\\s+')).toBe('license_key=K-123&identifier=example.com&product_id=12');
  });

  test('signing the example again gives its digests, signature base, Signature-Input and Signature', async () => {
    const form = quoted('the form\\s+')!;
    const body = quoted('with the body\\s+')!;
    const digest = (text: string) =>
      contentDigestField(new Uint8Array(createHash('sha256').update(text).digest()));
    expect(quoted('sent with\\s+')).toBe(`Content-Digest: ${digest(form)}`);
    const { base, signatureInput } = signingInput(
      {
        method: 'POST',
        ...requestTarget(/`POST ([^`]+)`/.exec(section)![1]!),
        contentDigest: digest(form),
      },
      { status: 200, contentDigest: digest(body), nonce: field('Licensing-Nonce') },
      {
        created: Number(/`created` (\d+)/.exec(section)![1]),
        expires: Number(/`created` (\d+)/.exec(section)![1]) + 300,
        keyid: await jwkThumbprint(RFC_PUBLIC_X),
      },
    );
    expect(field('Content-Digest')).toBe(digest(body));
    expect(blocks[1]).toBe(base);
    expect(field('Signature-Input')).toBe(signatureInput);
    expect(field('Signature')).toBe(signatureField(signWith(RFC_PRIVATE_KEY, base)));
  });
});

describe('RFC 9530: Content-Digest', () => {
  test('the sha-256 Content-Digest of the RFCs\' example content, {"hello": "world"}', () => {
    const body = '{"hello": "world"}';
    const digest = new Uint8Array(createHash('sha256').update(body).digest());
    expect(contentDigestField(digest)).toBe(
      'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:',
    );
    expect(sha256OfContentDigest(contentDigestField(digest))).toEqual(digest);
  });

  test('a field without a 32-byte sha-256 member names no digest', () => {
    expect(sha256OfContentDigest('sha-512=:AAAA:')).toBeNull();
    expect(sha256OfContentDigest('sha-256=:AAAA:')).toBeNull();
    expect(sha256OfContentDigest('sha-256=AAAA')).toBeNull();
    expect(sha256OfContentDigest('not a dictionary (')).toBeNull();
  });
});

describe('RFC 7638: a key is named by its thumbprint', () => {
  test('the thumbprint of the RFC 8037 A.3 example key', async () => {
    expect(await jwkThumbprint('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo')).toBe(
      'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
    );
  });

  test('a key set keeps only Ed25519 keys named by their own thumbprint', async () => {
    const good = await publicJwk(fromBase64(RFC_PUBLIC_X)!);
    const keys = await verificationKeys({
      keys: [
        good,
        { ...good, kid: 'chosen-name' },
        { ...good, crv: 'X25519' },
        { kty: 'RSA', kid: 'r' },
        null,
      ],
    });
    expect([...keys.keys()]).toEqual([good.kid]);
    expect(await verificationKeys('nonsense')).toEqual(new Map());
  });
});

describe('structured fields: read as RFC 8941 reads them', () => {
  const fields = [
    'licensing=("@status" "content-digest" "@method";req);created=1700000000;keyid="k-1";alg="ed25519"',
    'sig1=:AAEC:, sig2=:/w==:',
    'a=1, b=?0, c, d=tok/en;p=2',
    'sig=("a" "b");x="q\\"uote"',
  ];
  test.each(fields)('%s', (field) => {
    const ours = parseDictionary(field);
    const reference = referenceParseDictionary(field);
    expect(ours).not.toBeNull();
    expect([...ours!.keys()]).toEqual([...reference.keys()]);
  });

  test.each(['a=(', 'a="unterminated', 'A=1', 'a=1,', 'a=:not base64!:', 'a=1.5'])(
    'not well formed, so not read at all: %s',
    (field) => {
      expect(parseDictionary(field)).toBeNull();
    },
  );
});

describe('signed answers', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const x = publicKey.export({ format: 'jwk' }).x!;
  const form = 'license_key=k&identifier=shop.example&product_id=7';
  const request: SignedRequest = {
    method: 'POST',
    ...requestTarget('/api/index.php/v1/licensing/licenses/validate'),
    contentDigest: contentDigestField(new Uint8Array(createHash('sha256').update(form).digest())),
  };
  const body = '{"data":{"valid":true}}';
  const response = (nonce: string | null): SignedResponse => ({
    status: 200,
    contentDigest: contentDigestField(new Uint8Array(createHash('sha256').update(body).digest())),
    nonce,
  });

  async function signed(nonce: string | null, requestDigest = request.contentDigest) {
    const kid = await jwkThumbprint(x);
    const answer = response(nonce);
    const { base, signatureInput } = signingInput(
      { ...request, contentDigest: requestDigest },
      answer,
      {
        created: 1_800_000_000,
        expires: 1_800_000_300,
        keyid: kid,
      },
    );
    return { kid, answer, base, signatureInput, signature: signatureField(signWith(pem, base)) };
  }

  test('the request target: the path as sent, the query with its ?, or ? alone', () => {
    expect(requestTarget('/a/b?x=1&y')).toEqual({ path: '/a/b', query: '?x=1&y' });
    expect(requestTarget('/a/b')).toEqual({ path: '/a/b', query: '?' });
    expect(requestTarget('https://store.example/a%20b?')).toEqual({ path: '/a%20b', query: '?' });
    expect(requestTarget('https://store.example')).toEqual({ path: '/', query: '?' });
  });

  test("the signature covers the status, the digest, the request, the request's digest and the nonce when sent", async () => {
    const { base, signatureInput } = await signed('n0nce-of-sixteen-chars');
    expect(base.split('\n').map((line) => line.split(': ')[0])).toEqual([
      '"@status"',
      '"content-digest"',
      '"@method";req',
      '"@path";req',
      '"@query";req',
      '"content-digest";req',
      '"licensing-nonce"',
      '"@signature-params"',
    ]);
    expect(signatureInput).toMatch(/^licensing=\(.*\);created=1800000000;expires=1800000300;/);
    expect(signatureInput).toMatch(/;alg="ed25519"$/);
    expect((await signed(null)).base).not.toContain('licensing-nonce');
    expect((await signed(null, null)).base).not.toContain('"content-digest";req');
  });

  test('read back and checked as the client checks it', async () => {
    const { answer, signatureInput, signature, kid } = await signed('n0nce-of-sixteen-chars');
    const read = readSignature(signatureInput, signature, { nonce: true, requestDigest: true });
    if (typeof read === 'string') throw new Error(read);
    expect(read.params).toEqual({ created: 1_800_000_000, expires: 1_800_000_300, keyid: kid });
    const base = signatureBase(read.list, answerComponents(request, answer));
    expect(await verifyEd25519({ x }, utf8(base!), read.signature)).toBe(true);
    const otherPath = { ...request, path: '/api/index.php/v1/licensing/licenses/activate' };
    const moved = signatureBase(read.list, answerComponents(otherPath, answer));
    expect(await verifyEd25519({ x }, utf8(moved!), read.signature)).toBe(false);
    // An answer to another key's request (other form fields) is not one to this request.
    const otherKey = 'license_key=other&identifier=shop.example&product_id=7';
    const otherBody = {
      ...request,
      contentDigest: contentDigestField(
        new Uint8Array(createHash('sha256').update(otherKey).digest()),
      ),
    };
    const forOtherKey = signatureBase(read.list, answerComponents(otherBody, answer));
    expect(await verifyEd25519({ x }, utf8(forOtherKey!), read.signature)).toBe(false);
  });

  test('an answer that does not sign what must be signed is refused before any key is tried', async () => {
    const { signatureInput, signature } = await signed(null);
    const neither = { nonce: false, requestDigest: false };
    expect(readSignature(signatureInput, signature, { ...neither, nonce: true })).toMatch(
      /does not cover "licensing-nonce"/,
    );
    expect(readSignature(null, signature, neither)).toMatch(/not signed/);
    expect(readSignature(signatureInput.replace('ed25519', 'rsa'), signature, neither)).toMatch(
      /not ed25519/,
    );
    expect(readSignature('licensing=("@status")', signature, neither)).toMatch(/does not cover/);
    const { signatureInput: withoutDigest, signature: itsSignature } = await signed(null, null);
    expect(readSignature(withoutDigest, itsSignature, { ...neither, requestDigest: true })).toMatch(
      /does not cover "content-digest";req/,
    );
  });

  test('an independent implementation (http-message-signatures) verifies the signature', async () => {
    const nonce = 'n0nce-of-sixteen-chars';
    const { answer, signatureInput, signature, kid } = await signed(nonce);
    const verified = await verifyMessage(
      {
        keyLookup: async () => ({
          id: kid,
          algs: ['ed25519'],
          verify: async (data: Buffer, bytes: Buffer) =>
            verifyEd25519({ x }, new Uint8Array(data), new Uint8Array(bytes)),
        }),
        // The signature's own expiry is in the future of this test's fixed time.
        notAfter: 1_800_000_300,
      },
      {
        status: 200,
        headers: {
          'content-digest': answer.contentDigest,
          'licensing-nonce': nonce,
          'signature-input': signatureInput,
          signature,
        },
      },
      {
        method: 'POST',
        url: `https://store.example${request.path}`,
        headers: { 'content-digest': request.contentDigest! },
      },
    );
    expect(verified).toBe(true);
  });

  test('the covered components are one list, in one order', () => {
    expect(serializeInnerList({ items: coveredComponents(true, true), params: [] })).toBe(
      '("@status" "content-digest" "@method";req "@path";req "@query";req "content-digest";req' +
        ' "licensing-nonce")',
    );
  });
});

describe('license files', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const x = publicKey.export({ format: 'jwk' }).x!;
  const payload: LicenseFilePayload = {
    ver: 1,
    product_id: 7,
    identifier: 'shop.example',
    license: {
      valid: true,
      status: 'active',
      license_key: 'k',
      product: 'Plugin',
      plan: 'Pro',
      activation_type: 'domain',
      activation_limit: 3,
      activations_used: 1,
      expires_at: null,
    },
    issued_at: '2026-11-25T00:00:00.000Z',
    expires_at: '2026-12-25T00:00:00.000Z',
    iat: 1_795_564_800,
    exp: 1_798_156_800,
  };

  test('a file is a JWS: signed over its header and payload, read back whole', async () => {
    const kid = await jwkThumbprint(x);
    const input = licenseFileSigningInput(
      { alg: 'EdDSA', typ: 'licensing-file+jwt', kid },
      payload,
    );
    const file = licenseFile(input, signWith(pem, input));
    const read = readLicenseFile(file);
    expect(read?.header).toEqual({ alg: 'EdDSA', typ: 'licensing-file+jwt', kid });
    expect(read?.payload).toEqual(payload);
    expect(await verifyEd25519({ x }, utf8(read!.signingInput), read!.signature)).toBe(true);
    const [head, , sig] = file.split('.');
    const forged = `${head}.${toBase64Url(utf8(JSON.stringify({ ...payload, exp: 9e9 })))}.${sig}`;
    const readForged = readLicenseFile(forged)!;
    expect(await verifyEd25519({ x }, utf8(readForged.signingInput), readForged.signature)).toBe(
      false,
    );
  });

  test.each(['', 'a.b', 'a.b.c.d', 'e30.e30.AAAA', `${toBase64Url(utf8('{"alg":"none"}'))}.e30.`])(
    'not a license file: %s',
    (text) => {
      expect(readLicenseFile(text)).toBeNull();
    },
  );
});
