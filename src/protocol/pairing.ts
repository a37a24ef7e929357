/**
 * The pairing secret's proofs (Docs/Protocol_Extensions.md, "Pairing"): each side sends a fresh
 * nonce inside `initSuccess` and proves HMAC-SHA256(secret, "luapanda-pair-v1|<role>|<IDE
 * nonce>|<runtime nonce>"), the same text the runtime's `lua/luapanda/pairing.lua` computes. The
 * secret never crosses the wire, and a captured handshake fails against the other side's next
 * nonce.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type PairingRole = 'ide' | 'runtime';

/** A fresh nonce: 16 random bytes as hex. */
export function pairingNonce(): string {
  return randomBytes(16).toString('hex');
}

/** The proof `role` gives for the nonces of one exchange, as lower-case hex. */
export function pairingProof(
  secret: string,
  role: PairingRole,
  ideNonce: string,
  runtimeNonce: string,
): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`luapanda-pair-v1|${role}|${ideNonce}|${runtimeNonce}`, 'utf8')
    .digest('hex');
}

/** Whether `given` is the proof expected, compared in constant time. */
export function isPairingProof(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given, 'utf8'), Buffer.from(expected, 'utf8'));
}
