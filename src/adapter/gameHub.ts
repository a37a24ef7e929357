/**
 * An attach session as the parent of its games, for a client that opens child sessions (DAP
 * `startDebugging`): it owns the listening port and hands every game that connects — the first
 * included — to a child session named after the game (gameHandoff.ts). It has no program,
 * threads or stops of its own. It ends when it is stopped (ending its children first), when no
 * game came within `connectionTimeout`, or — without `autoReconnect` — when its last game's
 * session has ended; with `autoReconnect` it listens on for the next game.
 */
import {
  Connector,
  ListenSpec,
  SessionConnection,
  SessionError,
  SessionSettings,
  greetGame,
  listenConnector,
  sessionErrors,
  toSessionError,
} from '../session';
import { GameAction, actOnGames } from './gameControl';
import {
  GameChild,
  childConfiguration,
  gameDetails,
  gameTitle,
  offerGame,
  withdrawGame,
} from './gameHandoff';

export interface GameHubHooks {
  /** A line for the parent's Debug Console (`important`: shown to the user). */
  output(category: 'console' | 'important', text: string): void;
  /**
   * Asks the client for a child session with `configuration`; resolves with why it refused, or
   * undefined when it agreed.
   */
  openChild(configuration: Record<string, unknown>): Promise<string | undefined>;
  /** The hub ended (once), with the reason and the error that ended it, if one did. */
  ended(reason: string, error?: SessionError): void;
}

export class GameHub {
  private readonly children = new Set<GameChild>();
  /** Games offered whose child session has not joined yet. */
  private pending = 0;
  private games = 0;
  /** Games connected so far under each title (a second `game` is shown as `game 2`). */
  private readonly titles = new Map<string, number>();
  private stopping: Promise<void> | undefined;
  private finished = false;
  private connector: Connector | undefined;

  constructor(
    private readonly settings: SessionSettings,
    /** The parent's attach configuration, which each child's copies. */
    private readonly configuration: Record<string, unknown>,
    private readonly hooks: GameHubHooks,
  ) {}

  /** Where it listens (`127.0.0.1:8818`), once it does. */
  get endpoint(): string {
    return this.connector?.endpoint ?? 'its port';
  }

  /** Opens the port; rejects (the hub ends) when it cannot, or when the hub was stopped. */
  async listen(spec: ListenSpec): Promise<void> {
    let connector: Connector;
    try {
      if (this.stopping) throw sessionErrors.stoppedWhile('starting');
      connector = await listenConnector(spec);
    } catch (error) {
      const failure = toSessionError(error, 'invalid-configuration');
      await this.finish(failure.message, failure.code === 'terminated' ? undefined : failure);
      throw failure;
    }
    this.connector = connector;
    connector.onExtraConnection = (connection) => void this.take(connection);
    connector.onNotice = (text) => this.hooks.output('important', `${text}\n`);
    if (this.stopping) await connector.dispose(false);
  }

  /** How many games have a child session now. */
  get size(): number {
    return this.children.size;
  }

  /** Pause, continue or a step asked of the parent: done to its games (gameControl.ts). */
  act(action: GameAction): Promise<string[]> {
    return actOnGames([...this.children], this.endpoint, action);
  }

  /**
   * Waits (up to `connectTimeoutMs`) for the first game; resolves once it connected, then listens
   * on. Rejects, ending the hub, when none came in time or the hub was stopped meanwhile.
   */
  async start(connectTimeoutMs: number): Promise<void> {
    let first: SessionConnection;
    try {
      if (!this.connector) throw sessionErrors.stoppedWhile('starting');
      first = await this.connector.nextConnection(connectTimeoutMs);
    } catch (error) {
      const failure = toSessionError(error, 'no-connection');
      await this.finish(failure.message, failure.code === 'terminated' ? undefined : failure);
      throw failure;
    }
    void this.take(first);
    void this.listenOn();
  }

  /** Ends every game's session, then stops listening; the hub ends. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.all([...this.children].map((child) => child.stop().catch(() => undefined)));
      await this.finish(`Stopped listening for games on ${this.endpoint}.`);
    })();
    return this.stopping;
  }

  /** Each game that connects once the one before it left (further ones come as extras). */
  private async listenOn(): Promise<void> {
    for (;;) {
      let connection: SessionConnection;
      try {
        if (!this.connector) return;
        connection = await this.connector.nextConnection();
      } catch (error) {
        const failure = toSessionError(error, 'no-connection');
        if (failure.code !== 'terminated') await this.finish(failure.message, failure);
        return;
      }
      void this.take(connection);
    }
  }

  /** A game connected: greet it, offer it, and ask the client for its session. */
  private async take(connection: SessionConnection): Promise<void> {
    if (this.stopping || this.finished) {
      void connection.close();
      return;
    }
    const endpoint = this.endpoint;
    let handshake;
    try {
      handshake = await greetGame(connection, this.settings);
    } catch (error) {
      void connection.close();
      const failure = toSessionError(error);
      if (failure.code === 'pairing-failed') this.connector?.pairingFailed?.(connection);
      this.hooks.output('important', `A game connected on ${endpoint}, but ${failure.message}\n`);
      return;
    }
    const name = this.uniqueTitle(gameTitle(handshake, `Lua game ${++this.games}`));
    const details = gameDetails(handshake);
    this.pending++;
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      this.pending--;
      return true;
    };
    const id = offerGame({
      connection,
      handshake,
      endpoint,
      join: (child) => {
        settle();
        this.children.add(child);
        return () => this.leave(child);
      },
      dropped: () => {
        if (settle()) this.afterGameLeft();
      },
    });
    this.hooks.output(
      'console',
      `Game "${name}"${details ? ` (${details})` : ''} connected on ${endpoint}: debugged in ` +
        'its own session.\n',
    );
    const refused = await this.hooks.openChild(childConfiguration(this.configuration, name, id));
    if (refused === undefined) return;
    withdrawGame(id);
    this.hooks.output(
      'important',
      `Could not open a session for "${name}": ${refused}. It was disconnected.\n`,
    );
  }

  /** `game`, then `game 2`, `game 3` for further games of that name (the same program twice). */
  private uniqueTitle(title: string): string {
    const n = (this.titles.get(title) ?? 0) + 1;
    this.titles.set(title, n);
    return n > 1 ? `${title} ${n}` : title;
  }

  private leave(child: GameChild): void {
    if (this.children.delete(child)) this.afterGameLeft();
  }

  /** Without autoReconnect the hub ends with its last game, as an attach session does. */
  private afterGameLeft(): void {
    if (this.settings.autoReconnect || this.stopping) return;
    if (this.children.size > 0 || this.pending > 0) return;
    void this.finish('The game left; the session ends ("autoReconnect" keeps it listening).');
  }

  private async finish(reason: string, error?: SessionError): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    await this.connector?.dispose(false).catch(() => undefined);
    this.hooks.ended(reason, error);
  }
}
