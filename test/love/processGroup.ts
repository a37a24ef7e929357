/**
 * The processes of one process group, read from /proc (Linux): the LÖVE tests start
 * `xvfb-run`, which starts Xvfb and the game as its own children, in a group of their own, and
 * must know when every one of them is gone. Zombies count as gone: they hold no resources and
 * whoever adopted them reaps them.
 */
import * as fs from 'node:fs';

export interface GroupMember {
  readonly pid: number;
  /** The executable's name as the kernel keeps it (`love`, `Xvfb`, `xvfb-run`). */
  readonly command: string;
}

/** The live (non-zombie) processes whose process group is `pgid`. */
export function groupMembers(pgid: number): GroupMember[] {
  const members: GroupMember[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // it ended while we looked
    }
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses: split at the last ')'.
    const close = stat.lastIndexOf(')');
    const command = stat.slice(stat.indexOf('(') + 1, close);
    const [state, , pgrp] = stat
      .slice(close + 2)
      .split(' ')
      .slice(0, 3);
    if (Number(pgrp) === pgid && state !== 'Z') members.push({ pid: Number(entry), command });
  }
  return members;
}

/** Sends `signal` to the whole group; false when no process of it was left to receive it. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Resolves true once no live process is left in the group, false when `timeoutMs` runs out. */
export async function groupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupMembers(pgid).length > 0) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
