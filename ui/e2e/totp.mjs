// RFC 6238 authenticator codes computed in the tests (and the screenshots), as an authenticator app does.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';

export function base32Decode(text) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of text.replace(/[\s=]/g, '').toUpperCase()) {
    const v = alphabet.indexOf(c);
    assert.ok(v >= 0, `base32 character ${c}`);
    bits += v.toString(2).padStart(5, '0');
  }
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** RFC 6238's code (HMAC-SHA-1, 6 digits) of the 30 s step `step`. */
export function totp(secret, step) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = crypto.createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(value).padStart(6, '0');
}

/** The current 30 s step. */
export const stepNow = () => Math.floor(Date.now() / 1000 / 30);
