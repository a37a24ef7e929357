/**
 * Several games on one attach port. The session that listens (gameHub.ts) makes each game's
 * handshake (which tells the game's name), offers the connection here under an id and asks the
 * client for a child session (DAP `startDebugging`, an attach configuration carrying the id). The
 * child's adapter, a new `LuaDebugSession` in this process, claims the connection and joins its
 * parent's family. An offer nobody claims in time is closed: the game goes on trying to attach,
 * as after any lost link.
 */
import type { ReplyInfo } from '../protocol';
import type { LuaSession, SessionConnection } from '../session';

/** The attach configuration key that carries the id of an offered game. */
export const GAME_KEY = '__luapandaGame';
/** How long an offer waits for its child session. */
export const CLAIM_TIMEOUT_MS = 30_000;

export interface GameOffer {
  readonly connection: SessionConnection;
  readonly handshake: ReplyInfo<'initSuccess'>;
  /** Where the game connected (`127.0.0.1:8818`), for messages. */
  readonly endpoint: string;
  /** The child that claims the game joins its parent; it calls the result when it has ended. */
  readonly join?: (child: GameChild) => () => void;
  /** Nobody claimed the game (it was withdrawn). */
  readonly dropped?: () => void;
}

/** What a parent holds of a game's child session. */
export interface GameChild {
  /** The game's name, as its session is shown. */
  readonly name: string;
  /** The game's session: pause, continue and the steps asked of the parent act on it. */
  readonly session: LuaSession;
  /** Ends the child session (the game is detached from and runs on). */
  stop(): Promise<void>;
}

const offers = new Map<string, { offer: GameOffer; timer: NodeJS.Timeout }>();
let counter = 0;

export function offerGame(offer: GameOffer, timeoutMs = CLAIM_TIMEOUT_MS): string {
  const id = `game-${++counter}`;
  const timer = setTimeout(() => withdrawGame(id), timeoutMs);
  timer.unref();
  offers.set(id, { offer, timer });
  return id;
}

export function claimGame(id: string): GameOffer | undefined {
  const entry = offers.get(id);
  if (!entry) return undefined;
  clearTimeout(entry.timer);
  offers.delete(id);
  return entry.offer;
}

/** Drops an offer nobody took; its game is disconnected. */
export function withdrawGame(id: string): void {
  const offer = claimGame(id);
  if (!offer) return;
  if (!offer.connection.closed) void offer.connection.close();
  offer.dropped?.();
}

/** The id in a child's attach configuration, if it is one. */
export function offeredGameId(config: unknown): string | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  const value = (config as Record<string, unknown>)[GAME_KEY];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The name a game's session is shown under: short, because VS Code's Call Stack row holds it
 * beside a state badge and inline buttons — the game's own name, else its program file without
 * `.lua` (`game`, not `game.lua (pid 4242)`: the row was cut to "g."). The process id is in
 * `gameDetails`, which the attach session's console line shows.
 */
export function gameTitle(handshake: ReplyInfo<'initSuccess'>, fallback: string): string {
  if (handshake.gameName) return handshake.gameName;
  const program = handshake.program?.replace(/\.lua$/i, '');
  return program || fallback;
}

/** What tells games of one name apart: the program file and the process id, where known. */
export function gameDetails(handshake: ReplyInfo<'initSuccess'>): string | undefined {
  const parts = [
    ...(handshake.program ? [handshake.program] : []),
    ...(handshake.processId !== undefined ? [`pid ${handshake.processId}`] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/**
 * The child's configuration: the parent's attach configuration (so the same settings apply) with
 * the game's name and id. Keys the client added for its own use (`__…`) are left out.
 */
export function childConfiguration(
  parent: Record<string, unknown>,
  name: string,
  id: string,
): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parent)) {
    if (!key.startsWith('__')) config[key] = value;
  }
  return { ...config, type: 'luapanda', request: 'attach', name, [GAME_KEY]: id };
}
