/**
 * Pause, continue and the steps asked of an attach session that is the parent of games
 * (gameHub.ts): they act on its games' sessions — its game when it has one, every game it can
 * for pause and continue, the one paused game for a step — and a request that cannot act says
 * why instead of doing nothing. VS Code's toolbar acts on the focused session, which is the
 * parent right after F5.
 */
import { SessionError } from '../session';
import type { GameChild } from './gameHandoff';

export type GameAction = 'pause' | 'continue' | 'stepOver' | 'stepIn' | 'stepOut';

const VERBS: Readonly<Record<GameAction, string>> = {
  pause: 'pause',
  continue: 'continue',
  stepOver: 'step over',
  stepIn: 'step in',
  stepOut: 'step out',
};

/** Where a game's own session is, for the messages. */
const OWN_SESSION = "in the game's own session (under this one in the Call Stack)";

function names(games: readonly GameChild[]): string {
  return games.map((g) => `"${g.name}"`).join(', ');
}

/** Does `action` to the games it applies to; returns their names, or throws saying why none. */
export async function actOnGames(
  games: readonly GameChild[],
  endpoint: string,
  action: GameAction,
): Promise<string[]> {
  const verb = VERBS[action];
  if (games.length === 0) {
    throw new SessionError(
      'not-active',
      `No game is attached yet: this session waits for games on ${endpoint}, and there is nothing to ${verb}.`,
    );
  }
  if (action === 'pause') {
    const running = games.filter((g) => g.session.state === 'Running');
    if (running.length === 0) {
      throw new SessionError(
        'not-running',
        games.length === 1
          ? `The game ${names(games)} is paused already: continue or step ${OWN_SESSION}.`
          : `Every game is paused already (${names(games)}): continue or step ${OWN_SESSION}.`,
      );
    }
    await Promise.all(running.map((g) => g.session.pause()));
    return running.map((g) => g.name);
  }
  const paused = games.filter((g) => g.session.stop !== undefined);
  if (paused.length === 0) {
    throw new SessionError(
      'not-stopped',
      `Cannot ${verb}: no game is paused (${names(games)} ${games.length === 1 ? 'runs' : 'run'}).`,
    );
  }
  if (action === 'continue') {
    await Promise.all(paused.map((g) => g.session.continue(g.session.stop?.threadId)));
    return paused.map((g) => g.name);
  }
  if (paused.length > 1) {
    throw new SessionError(
      'not-supported',
      `Several games are paused (${names(paused)}): ${verb} ${OWN_SESSION} of the one you mean.`,
    );
  }
  const [game] = paused;
  const threadId = game.session.stop?.threadId;
  if (action === 'stepOver') await game.session.stepOver(threadId);
  else if (action === 'stepIn') await game.session.stepIn(threadId);
  else await game.session.stepOut(threadId);
  return [game.name];
}
