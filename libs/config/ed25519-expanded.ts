/**
 * Ed25519 signing (RFC 8032, 5.1.6) with an already expanded private key: the clamped scalar
 * and the prefix that SHA-512 of a seed gives. Sparkle's keys made before version 2.6 are kept in
 * that form, without the seed, and Node's crypto signs only from a seed. Every signature made here
 * is checked with Node's own verification by the caller.
 */
import { createHash } from 'node:crypto';

const P = 2n ** 255n - 19n;
/** The order of the base point. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const D = mod(-121665n * inverse(121666n));
const D2 = mod(2n * D);

/** A point in extended coordinates (x = X/Z, y = Y/Z, x·y = T/Z). */
interface Point {
  X: bigint;
  Y: bigint;
  Z: bigint;
  T: bigint;
}

const BASE_X = 15112221349535400772501151409588531511454012693041857206046113283949847762202n;
const BASE_Y = 46316835694926478169428394003475163141307993866256225615783033603165251855960n;
const BASE: Point = { X: BASE_X, Y: BASE_Y, Z: 1n, T: mod(BASE_X * BASE_Y) };
const ZERO: Point = { X: 0n, Y: 1n, Z: 1n, T: 0n };

function mod(value: bigint, modulus = P): bigint {
  const rest = value % modulus;
  return rest >= 0n ? rest : rest + modulus;
}

function power(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = mod(result * b);
    b = mod(b * b);
  }
  return result;
}

function inverse(value: bigint): bigint {
  return power(value, P - 2n);
}

/** RFC 8032 5.1.4: the addition formula of a = -1, which also doubles. */
function add(p: Point, q: Point): Point {
  const a = mod((p.Y - p.X) * (q.Y - q.X));
  const b = mod((p.Y + p.X) * (q.Y + q.X));
  const c = mod(p.T * D2 * q.T);
  const d = mod(p.Z * 2n * q.Z);
  const e = b - a;
  const f = d - c;
  const g = d + c;
  const h = b + a;
  return { X: mod(e * f), Y: mod(g * h), T: mod(e * h), Z: mod(f * g) };
}

function multiply(scalar: bigint, point: Point): Point {
  let result = ZERO;
  let addend = point;
  for (let s = scalar; s > 0n; s >>= 1n) {
    if (s & 1n) result = add(result, addend);
    addend = add(addend, addend);
  }
  return result;
}

function littleEndian(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

function toLittleEndian(value: bigint): Buffer {
  const bytes = Buffer.alloc(32);
  let rest = value;
  for (let i = 0; i < 32; i++) {
    bytes[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return bytes;
}

/** RFC 8032 5.1.2: y, with the low bit of x in the top bit. */
function encode(point: Point): Buffer {
  const zInverse = inverse(point.Z);
  const x = mod(point.X * zInverse);
  const y = mod(point.Y * zInverse);
  const bytes = toLittleEndian(y);
  bytes[31] = bytes[31]! | (Number(x & 1n) << 7);
  return bytes;
}

function hashToScalar(...parts: Uint8Array[]): bigint {
  const hash = createHash('sha512');
  for (const part of parts) hash.update(part);
  return mod(littleEndian(hash.digest()), L);
}

/** The public key (32 bytes) of a 64-byte expanded private key: its scalar times the base. */
export function expandedPublicKey(expanded: Uint8Array): Buffer {
  return encode(multiply(littleEndian(expanded.subarray(0, 32)), BASE));
}

/** The 64-byte signature of `message` by the expanded key whose public key is `publicKey`. */
export function signWithExpandedKey(
  expanded: Uint8Array,
  publicKey: Uint8Array,
  message: Uint8Array,
): Buffer {
  const scalar = littleEndian(expanded.subarray(0, 32));
  const r = hashToScalar(expanded.subarray(32, 64), message);
  const R = encode(multiply(r, BASE));
  const k = hashToScalar(R, publicKey, message);
  return Buffer.concat([R, toLittleEndian(mod(r + k * scalar, L))]);
}
