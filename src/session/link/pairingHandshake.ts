/**
 * The handshake under a pairing secret (`connectionSecret`; Docs/Protocol_Extensions.md,
 * "Pairing"). The first `initSuccess` carries our nonce and no path of this machine; the runtime
 * answers with its own nonce and applies nothing; the second carries the settings and our proof,
 * and the runtime's reply carries its proof, checked before anything it says is believed. A
 * peer that fails gets its connection closed, and the session's wait goes on.
 */
import { ReplyInfo, isPairingProof, pairingNonce, pairingProof } from '../../protocol';
import { sessionErrors, toSessionError } from '../errors';
import { handshakeFor } from './handshakeSettings';
import type { SessionConnection, SessionSettings } from '../types';

/** Longest wait for each pairing reply: the game answers at once, a silent stranger is let go. */
const PAIRING_TIMEOUT_MS = 5_000;

const NO_CHALLENGE =
  'it has no pairing secret (give it the same one: require("LuaPanda").start(host, port, ' +
  '{ secret = "…" }), startServer likewise, or the environment variable LUAPANDA_SECRET), or its ' +
  "LuaPanda.lua cannot pair (upstream's, or an older copy of ours: copy the current one)";

/** The pairing handshake; rejects with `pairing-failed` and closes the connection. */
export async function pairedHandshake(
  connection: SessionConnection,
  settings: SessionSettings,
  secret: string,
): Promise<ReplyInfo<'initSuccess'>> {
  const ideNonce = pairingNonce();
  const settingsInfo = handshakeFor(settings);
  const refuse = (reason: string): never => {
    connection.destroy();
    throw sessionErrors.pairingFailed(reason);
  };
  // A peer that holds the connection silent is a stranger too: it must not end the wait.
  const ask = async (info: typeof settingsInfo): Promise<ReplyInfo<'initSuccess'>> => {
    try {
      return await connection.request('initSuccess', info, {
        timeoutMs: Math.min(settings.requestTimeoutMs, PAIRING_TIMEOUT_MS),
      });
    } catch (error) {
      return refuse(
        `A program connected, but the pairing did not complete: ${toSessionError(error).message}`,
      );
    }
  };
  // Until the game proved the secret it is told nothing of this machine's folders.
  const challenge = await ask({
    ...settingsInfo,
    cwd: '',
    TempFilePath: '',
    clibPath: '',
    pairNonce: ideNonce,
  });
  if (challenge.error !== undefined)
    return refuse(`The game refused the pairing: ${challenge.error}`);
  const runtimeNonce = challenge.pairNonce;
  if (
    challenge.pairing !== 'challenge' ||
    typeof runtimeNonce !== 'string' ||
    !/^[0-9A-Za-z]{16,128}$/.test(runtimeNonce)
  ) {
    return refuse(
      `A program connected, but it did not answer the pairing that "connectionSecret" asks for: ${NO_CHALLENGE}.`,
    );
  }
  const reply = await ask({
    ...settingsInfo,
    pairNonce: ideNonce,
    pairProof: pairingProof(secret, 'ide', ideNonce, runtimeNonce),
  });
  if (reply.error !== undefined) return refuse(`The game refused the pairing: ${reply.error}`);
  if (!isPairingProof(reply.pairProof, pairingProof(secret, 'runtime', ideNonce, runtimeNonce))) {
    return refuse(
      'A program connected, but it did not prove the pairing secret: it is not the game, or its ' +
        'secret differs from "connectionSecret".',
    );
  }
  return reply;
}
