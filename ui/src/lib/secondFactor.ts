// Second factors: the account page's calls (authenticator app, security keys, recovery codes),
// the second step of signing in, and the WebAuthn JSON <-> browser conversions.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest, getQueryFn } from './api';
import type { components } from './api/schema';
import { CURRENT_USER_KEY, type AuthResponse } from './auth';

type Schemas = components['schemas'];
export type SecondFactorStatus = Schemas['SecondFactorStatus'];
export type TotpSetup = Schemas['TotpSetup'];
export type FactorAdded = Schemas['FactorAdded'];
export type SecondFactorNeeded = Schemas['SecondFactorNeeded'];
export type SecondFactorMethod = 'passkey' | 'totp' | 'recovery';

export const SECOND_FACTORS_KEY = ['/api/account/second-factors'] as const;

/** Whether the password step answered "now the second factor" (202) rather than a session. */
export function needsSecondFactor(data: unknown): data is SecondFactorNeeded {
  return typeof data === 'object' && data !== null && (data as SecondFactorNeeded).secondFactorRequired === true;
}

/** The sign-in methods in the order the second step offers them, known ones only. */
export function signInMethods(needed: SecondFactorNeeded): SecondFactorMethod[] {
  const order: SecondFactorMethod[] = ['passkey', 'totp', 'recovery'];
  return order.filter((m) => needed.methods.includes(m));
}

/** What the person typed, as the server reads it: six digits without spaces, else as typed. */
export function normalizeCode(typed: string): string {
  const compact = typed.replace(/\s+/g, '');
  return /^\d{6}$/.test(compact) ? compact : typed.trim();
}

/** The base32 secret in groups of four, as people copy it into an app. */
export function groupSecret(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

/** The recovery codes as a text file a person keeps. */
export function recoveryCodesText(siteName: string, username: string, codes: string[]): string {
  return [
    `${siteName} recovery codes for ${username}`,
    'Each code signs you in once, in place of your authenticator app or security key.',
    '',
    ...codes,
    '',
  ].join('\n');
}

// ---- WebAuthn: the server's JSON (binary as base64url) to the browser's options and back ----

export function base64urlToBytes(value: string): Uint8Array<ArrayBuffer> {
  const base64 = value.replace(/-/g, '+').replace(/_/g, '/');
  const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function bytesToBase64url(value: ArrayBuffer | ArrayBufferView): string {
  const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

type Json = Record<string, unknown>;
type Descriptor = { id: string; type: string; transports?: string[] };

function descriptors(list: unknown): PublicKeyCredentialDescriptor[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return (list as Descriptor[]).map((d) => ({
    ...d,
    type: 'public-key',
    id: base64urlToBytes(d.id),
    transports: d.transports as AuthenticatorTransport[] | undefined,
  }));
}

/** `{publicKey: ...}` from the server to what `navigator.credentials.create` takes. */
export function creationOptions(json: Json): CredentialCreationOptions {
  const pk = json.publicKey as Json;
  const user = pk.user as Json;
  return {
    publicKey: {
      ...(pk as unknown as PublicKeyCredentialCreationOptions),
      challenge: base64urlToBytes(pk.challenge as string),
      user: { ...(user as unknown as PublicKeyCredentialUserEntity), id: base64urlToBytes(user.id as string) },
      excludeCredentials: descriptors(pk.excludeCredentials),
    },
  };
}

/** `{publicKey: ...}` from the server to what `navigator.credentials.get` takes. */
export function requestOptions(json: Json): CredentialRequestOptions {
  const pk = json.publicKey as Json;
  return {
    publicKey: {
      ...(pk as unknown as PublicKeyCredentialRequestOptions),
      challenge: base64urlToBytes(pk.challenge as string),
      allowCredentials: descriptors(pk.allowCredentials),
    },
  };
}

/** The browser's answer as the JSON the server reads (binary fields base64url). */
export function credentialJson(credential: PublicKeyCredential): Json {
  const response = credential.response as AuthenticatorAttestationResponse & AuthenticatorAssertionResponse;
  const encoded: Json = { clientDataJSON: bytesToBase64url(response.clientDataJSON) };
  if ('attestationObject' in response && response.attestationObject) {
    encoded.attestationObject = bytesToBase64url(response.attestationObject);
    if (typeof response.getTransports === 'function') encoded.transports = response.getTransports();
  }
  if ('authenticatorData' in response && response.authenticatorData) {
    encoded.authenticatorData = bytesToBase64url(response.authenticatorData);
    encoded.signature = bytesToBase64url(response.signature);
    encoded.userHandle = response.userHandle ? bytesToBase64url(response.userHandle) : null;
  }
  return {
    id: credential.id,
    rawId: bytesToBase64url(credential.rawId),
    type: credential.type,
    response: encoded,
    extensions: typeof credential.getClientExtensionResults === 'function' ? credential.getClientExtensionResults() : {},
  };
}

/** Whether this browser can use security keys at all. */
export function browserSupportsPasskeys(): boolean {
  return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function' && !!navigator.credentials;
}

/** A refused or abandoned browser prompt, in words. */
export function passkeyErrorText(err: unknown): string | undefined {
  if (err instanceof DOMException) {
    if (err.name === 'NotAllowedError') return 'The security key prompt was closed or timed out. Try again.';
    if (err.name === 'InvalidStateError') return 'This security key is added to your account already.';
    if (err.name === 'SecurityError') return 'Security keys need the site opened by its name over https (or localhost).';
    return err.message;
  }
  return undefined;
}

// ---- the account page ----

export function useSecondFactors(enabled = true) {
  return useQuery<SecondFactorStatus | null>({
    queryKey: SECOND_FACTORS_KEY,
    queryFn: getQueryFn<SecondFactorStatus>({ on401: 'returnNull' }),
    enabled,
  });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: SECOND_FACTORS_KEY });
}

export function useStartTotp() {
  return useMutation<TotpSetup, unknown, void>({
    mutationFn: () => apiRequest<TotpSetup>('POST', '/api/account/second-factors/totp', {}),
  });
}

export function useConfirmTotp() {
  const refresh = useRefresh();
  return useMutation<FactorAdded, unknown, string>({
    mutationFn: (code) => apiRequest<FactorAdded>('POST', '/api/account/second-factors/totp/confirm', { code: normalizeCode(code) }),
    onSuccess: refresh,
  });
}

/** Adds a security key: the server's options, the browser's prompt, the server's check. */
export function useAddPasskey() {
  const refresh = useRefresh();
  return useMutation<FactorAdded, unknown, string>({
    mutationFn: async (name) => {
      const options = await apiRequest<Json>('POST', '/api/account/second-factors/passkeys', { name });
      const credential = (await navigator.credentials.create(creationOptions(options))) as PublicKeyCredential | null;
      if (!credential) throw new DOMException('No security key answered.', 'NotAllowedError');
      return apiRequest<FactorAdded>('POST', '/api/account/second-factors/passkeys/confirm', { credential: credentialJson(credential) });
    },
    onSuccess: refresh,
  });
}

export type RemoveRequest = { method: 'totp'; password: string } | { method: 'passkey'; passkeyId: number; password: string };

export function useRemoveFactor() {
  const refresh = useRefresh();
  return useMutation<{ success: boolean; enabled: boolean }, unknown, RemoveRequest>({
    mutationFn: (body) => apiRequest('POST', '/api/account/second-factors/remove', body),
    onSuccess: refresh,
  });
}

export function useNewRecoveryCodes() {
  const refresh = useRefresh();
  return useMutation<{ recoveryCodes: string[] }, unknown, string>({
    mutationFn: (password) => apiRequest('POST', '/api/account/second-factors/recovery-codes', { password }),
    onSuccess: refresh,
  });
}

// ---- the second step of signing in ----

function useSignedIn() {
  const qc = useQueryClient();
  return (data: AuthResponse) => {
    qc.setQueryData(CURRENT_USER_KEY, data.user);
    qc.invalidateQueries({ queryKey: CURRENT_USER_KEY });
  };
}

export function useSignInWithCode() {
  const signedIn = useSignedIn();
  return useMutation<AuthResponse, unknown, string>({
    mutationFn: (code) => apiRequest<AuthResponse>('POST', '/api/auth/second-factor', { code: normalizeCode(code) }),
    onSuccess: signedIn,
  });
}

export function useSignInWithPasskey() {
  const signedIn = useSignedIn();
  return useMutation<AuthResponse, unknown, void>({
    mutationFn: async () => {
      const options = await apiRequest<Json>('POST', '/api/auth/second-factor/passkey');
      const credential = (await navigator.credentials.get(requestOptions(options))) as PublicKeyCredential | null;
      if (!credential) throw new DOMException('No security key answered.', 'NotAllowedError');
      return apiRequest<AuthResponse>('POST', '/api/auth/second-factor/passkey/confirm', { credential: credentialJson(credential) });
    },
    onSuccess: signedIn,
  });
}
