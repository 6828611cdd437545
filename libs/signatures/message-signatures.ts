import {
  isInnerList,
  parseDictionary,
  serializeInnerList,
  serializeItem,
  toBase64,
  type InnerList,
  type Item,
  type Parameters,
} from './structured-fields.js';

/**
 * HTTP Message Signatures (RFC 9421) as the public API signs its answers and the reference
 * client checks them: one signature, labelled `licensing`, over the answer's status and content
 * digest (RFC 9530), the request's method, path and query, the request's own content digest when
 * it sent one (so the form fields it sent are covered too: an answer to another key's request
 * cannot pass for this one's), and the client's nonce when it sent one. The signer and the
 * verifier build the signature base with the same functions, so they cannot disagree on it;
 * docs/api-decisions.md ("Signed answers") gives a worked example.
 */

/** The label of the signature in `Signature-Input` and `Signature`. */
export const SIGNATURE_LABEL = 'licensing';
/** The request header a client sends its nonce in; the answer echoes it, covered. */
export const NONCE_HEADER = 'licensing-nonce';
/** A nonce: 16 to 128 base64url characters (at least 96 bits when random). */
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
/** RFC 9421's name of the algorithm (section 3.3.6). */
export const SIGNATURE_ALGORITHM = 'ed25519';

/** What a signature covers of the request: its target as the client sent it. */
export interface SignedRequest {
  method: string;
  /** The path as sent, percent-encoded (`/api/index.php/v1/licensing/licenses/validate`). */
  path: string;
  /** The query as sent with its `?`, or `?` alone when there is none (RFC 9421 2.2.7). */
  query: string;
  /**
   * The request's `Content-Digest` field, as sent, when the server checked it against the body it
   * received; null when the request sent none.
   */
  contentDigest: string | null;
}

/** What a signature covers of the answer. */
export interface SignedResponse {
  status: number;
  /** The `Content-Digest` field of the answer (`contentDigestField`). */
  contentDigest: string;
  /** The nonce echoed in the `Licensing-Nonce` field, or null when the client sent none. */
  nonce: string | null;
}

export interface SignatureParams {
  /** Seconds since the epoch. */
  created: number;
  /** Seconds since the epoch: past it the answer is not to be trusted any more. */
  expires: number;
  /** The key's id in the public key set (its JWK thumbprint). */
  keyid: string;
}

/** The request target of a URL or of a request line's target (`/path?query`). */
export function requestTarget(target: string): Pick<SignedRequest, 'path' | 'query'> {
  const url = /^[a-z][a-z0-9+.-]*:/i.test(target) ? new URL(target) : null;
  const pathAndQuery = url ? url.pathname + url.search : target;
  const question = pathAndQuery.indexOf('?');
  const path = question === -1 ? pathAndQuery : pathAndQuery.slice(0, question);
  const query = question === -1 ? '' : pathAndQuery.slice(question + 1);
  return { path: path === '' ? '/' : path, query: `?${query}` };
}

/** RFC 9530: `Content-Digest: sha-256=:<base64 of the SHA-256 of the content>:`. */
export function contentDigestField(sha256: Uint8Array): string {
  return `sha-256=:${toBase64(sha256)}:`;
}

/** The SHA-256 a `Content-Digest` field names, or null when it names none. */
export function sha256OfContentDigest(field: string): Uint8Array | null {
  const member = parseDictionary(field)?.get('sha-256');
  if (member === undefined || isInnerList(member) || !(member.value instanceof Uint8Array)) {
    return null;
  }
  return member.value.length === 32 ? member.value : null;
}

const component = (name: string, fromRequest = false): Item => ({
  value: name,
  params: fromRequest ? [['req', true]] : [],
});

/** The components a signature of an answer covers, in this order. */
export function coveredComponents(withNonce: boolean, withRequestDigest: boolean): Item[] {
  return [
    component('@status'),
    component('content-digest'),
    component('@method', true),
    component('@path', true),
    component('@query', true),
    ...(withRequestDigest ? [component('content-digest', true)] : []),
    ...(withNonce ? [component(NONCE_HEADER)] : []),
  ];
}

function signatureParameters(params: SignatureParams): Parameters {
  return [
    ['created', params.created],
    ['expires', params.expires],
    ['keyid', params.keyid],
    ['alg', SIGNATURE_ALGORITHM],
  ];
}

/** The value of a covered component, or null when it has none (RFC 9421 2.1, 2.2). */
export type ComponentValues = (component: Item) => string | null;

/**
 * The values of what an answer's signature covers, or null for a component this profile does
 * not sign (any other field, any other parameter).
 */
export function answerComponents(
  request: SignedRequest,
  response: SignedResponse,
): ComponentValues {
  return (item) => {
    const fromRequest = item.params.some(([key, value]) => key === 'req' && value === true);
    const otherParams = item.params.some(([key]) => key !== 'req');
    if (otherParams || typeof item.value !== 'string') return null;
    switch (`${item.value}${fromRequest ? ';req' : ''}`) {
      case '@status':
        return String(response.status);
      case 'content-digest':
        return response.contentDigest;
      case NONCE_HEADER:
        return response.nonce;
      case '@method;req':
        return request.method.toUpperCase();
      case '@path;req':
        return request.path;
      case '@query;req':
        return request.query;
      case 'content-digest;req':
        return request.contentDigest;
      default:
        return null;
    }
  };
}

/**
 * RFC 9421 2.5: the signature base of the components of `list`, one line each, ending with the
 * `@signature-params` line. Null when a component has no value (a nonce covered but not echoed,
 * a component this profile does not sign) or one that would break the base across lines.
 */
export function signatureBase(
  list: InnerList,
  valueOf: ComponentValues,
  /** `serializeInnerList(list)`, when the caller has it already. */
  serialized = serializeInnerList(list),
): string | null {
  let base = '';
  for (const item of list.items) {
    const value = valueOf(item);
    if (value === null || /[\r\n]/.test(value)) return null;
    base += `${serializeItem(item)}: ${value}\n`;
  }
  return `${base}"@signature-params": ${serialized}`;
}

/** What the signer writes: the base to sign and the `Signature-Input` field naming it. */
export function signingInput(
  request: SignedRequest,
  response: SignedResponse,
  params: SignatureParams,
): { base: string; signatureInput: string } {
  const list: InnerList = {
    items: coveredComponents(response.nonce !== null, request.contentDigest !== null),
    params: signatureParameters(params),
  };
  const serialized = serializeInnerList(list);
  const base = signatureBase(list, answerComponents(request, response), serialized);
  if (base === null) throw new Error('The answer lacks a component its signature covers.');
  return { base, signatureInput: `${SIGNATURE_LABEL}=${serialized}` };
}

/** The `Signature` field of a signature. */
export function signatureField(signature: Uint8Array): string {
  return `${SIGNATURE_LABEL}=:${toBase64(signature)}:`;
}

/** A signature as an answer carries it, read back (`readSignature`). */
export interface ReadSignature {
  list: InnerList;
  params: SignatureParams;
  signature: Uint8Array;
}

/**
 * The `licensing` signature of an answer's `Signature-Input` and `Signature` fields, or a reason
 * it cannot be one of this profile: it must cover at least the components `coveredComponents`
 * names (the nonce and the request's content digest when the request sent them) and carry
 * `created`, `expires`, `keyid` and `alg=ed25519`.
 */
export function readSignature(
  signatureInput: string | null,
  signatureHeader: string | null,
  expected: { nonce: boolean; requestDigest: boolean },
): ReadSignature | string {
  if (signatureInput === null || signatureHeader === null) return 'the answer is not signed';
  const list = parseDictionary(signatureInput)?.get(SIGNATURE_LABEL);
  const signed = parseDictionary(signatureHeader)?.get(SIGNATURE_LABEL);
  if (list === undefined || !isInnerList(list)) return 'no licensing signature input';
  if (signed === undefined || isInnerList(signed) || !(signed.value instanceof Uint8Array)) {
    return 'no licensing signature';
  }
  const covered = new Set(list.items.map(serializeItem));
  for (const wanted of coveredComponents(expected.nonce, expected.requestDigest)) {
    if (!covered.has(serializeItem(wanted))) {
      return `the signature does not cover ${serializeItem(wanted)}`;
    }
  }
  const param = (key: string) => list.params.find(([name]) => name === key)?.[1];
  const [created, expires, keyid, alg] = ['created', 'expires', 'keyid', 'alg'].map(param);
  if (alg !== SIGNATURE_ALGORITHM) return 'the signature is not ed25519';
  if (typeof created !== 'number' || typeof expires !== 'number' || typeof keyid !== 'string') {
    return 'the signature lacks created, expires or keyid';
  }
  return { list, params: { created, expires, keyid }, signature: signed.value };
}
