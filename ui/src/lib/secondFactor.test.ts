import { describe, expect, it } from 'vitest';
import {
  base64urlToBytes,
  bytesToBase64url,
  creationOptions,
  credentialJson,
  groupSecret,
  needsSecondFactor,
  normalizeCode,
  passkeyErrorText,
  recoveryCodesText,
  requestOptions,
  signInMethods,
} from './secondFactor';

describe('the second step of signing in', () => {
  it('tells a 202 "second factor needed" from a signed-in answer', () => {
    expect(needsSecondFactor({ secondFactorRequired: true, methods: ['totp'], expiresIn: 300 })).toBe(true);
    expect(needsSecondFactor({ success: true, user: { id: 1 } })).toBe(false);
    expect(needsSecondFactor(null)).toBe(false);
    expect(needsSecondFactor('text')).toBe(false);
  });

  it('offers the methods in a fixed order and ignores unknown ones', () => {
    expect(signInMethods({ secondFactorRequired: true, methods: ['recovery', 'totp', 'passkey', 'sms'], expiresIn: 300 })).toEqual([
      'passkey',
      'totp',
      'recovery',
    ]);
  });

  it('sends six digits typed with spaces as six digits, and a recovery code as typed', () => {
    expect(normalizeCode(' 123 456 ')).toBe('123456');
    expect(normalizeCode('abcd-efgh-ijkl-mnop ')).toBe('abcd-efgh-ijkl-mnop');
    expect(normalizeCode('12345')).toBe('12345');
  });
});

describe('setting up', () => {
  it('groups the secret in fours for typing', () => {
    expect(groupSecret('ABCDEFGHIJKLMNOPQR')).toBe('ABCD EFGH IJKL MNOP QR');
    expect(groupSecret('ABCD')).toBe('ABCD');
  });

  it('writes the recovery codes file with the site, the account and every code', () => {
    const text = recoveryCodesText('Fan Site', 'alice', ['aaaa-bbbb-cccc-dddd', 'eeee-ffff-gggg-hhhh']);
    expect(text.split('\n')[0]).toBe('Fan Site recovery codes for alice');
    expect(text).toContain('aaaa-bbbb-cccc-dddd\neeee-ffff-gggg-hhhh\n');
  });

  it('names the browser prompt errors a person meets', () => {
    expect(passkeyErrorText(new DOMException('x', 'NotAllowedError'))).toMatch(/closed or timed out/);
    expect(passkeyErrorText(new DOMException('x', 'InvalidStateError'))).toMatch(/added to your account already/);
    expect(passkeyErrorText(new Error('other'))).toBeUndefined();
  });
});

describe('WebAuthn JSON', () => {
  it('round-trips base64url without padding, including the url-safe characters', () => {
    const bytes = new Uint8Array([0, 251, 255, 62, 63, 1, 2]);
    const encoded = bytesToBase64url(bytes);
    expect(encoded).not.toMatch(/[+/=]/);
    expect(Array.from(base64urlToBytes(encoded))).toEqual(Array.from(bytes));
    expect(Array.from(base64urlToBytes('AQID'))).toEqual([1, 2, 3]);
    expect(bytesToBase64url(new Uint8Array([1, 2, 3, 4]).buffer)).toBe('AQIDBA');
  });

  it('turns the server options binary fields into bytes for the browser', () => {
    const create = creationOptions({
      publicKey: {
        challenge: 'AQID',
        rp: { id: 'localhost', name: 'Site' },
        user: { id: 'BAUG', name: 'alice', displayName: 'alice' },
        pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
        excludeCredentials: [{ type: 'public-key', id: 'BwgJ' }],
      },
    }).publicKey!;
    expect(Array.from(new Uint8Array(create.challenge as ArrayBuffer))).toEqual([1, 2, 3]);
    expect(Array.from(new Uint8Array(create.user.id as ArrayBuffer))).toEqual([4, 5, 6]);
    expect(Array.from(new Uint8Array(create.excludeCredentials![0].id as ArrayBuffer))).toEqual([7, 8, 9]);
    expect(create.rp.id).toBe('localhost');

    const get = requestOptions({ publicKey: { challenge: 'AQID', allowCredentials: [{ type: 'public-key', id: 'BwgJ' }], rpId: 'localhost' } }).publicKey!;
    expect(Array.from(new Uint8Array(get.allowCredentials![0].id as ArrayBuffer))).toEqual([7, 8, 9]);
    expect(get.rpId).toBe('localhost');
  });

  it('encodes an assertion with every field the server reads', () => {
    const buf = (...b: number[]) => new Uint8Array(b).buffer;
    const credential = {
      id: 'abc',
      rawId: buf(1, 2),
      type: 'public-key',
      response: { clientDataJSON: buf(3), authenticatorData: buf(4), signature: buf(5), userHandle: null },
      getClientExtensionResults: () => ({}),
    } as unknown as PublicKeyCredential;
    expect(credentialJson(credential)).toEqual({
      id: 'abc',
      rawId: 'AQI',
      type: 'public-key',
      response: { clientDataJSON: 'Aw', authenticatorData: 'BA', signature: 'BQ', userHandle: null },
      extensions: {},
    });
  });
});
