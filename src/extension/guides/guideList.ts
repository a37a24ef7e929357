/**
 * The guides the VSIX carries (with their folders, so their links to each other resolve) and
 * "LuaPanda: Open a Guide" opens. Plain data, without `vscode`: the packaging script reads it to
 * point the packaged README's links at the command, and a test checks `.vscodeignore` ships them.
 */
export interface Guide {
  /** The command's argument (`command:luapanda.openGuide?["Engines"]`) and the name users pick. */
  readonly name: string;
  /** Its path in the repository and in the installed extension. */
  readonly file: string;
  readonly description: string;
}

export const GUIDES: readonly Guide[] = [
  {
    name: 'Engines',
    file: 'Docs/Engines.md',
    description: 'Where LuaPanda.lua goes in Unity, Unreal, Cocos, LÖVE, Defold, Solar2D; sockets',
  },
  {
    name: 'Hot Reload',
    file: 'Docs/Hot_Reload.md',
    description: 'What a hot reload replaces, what it keeps, and what it cannot do',
  },
  {
    name: 'Runtime',
    file: 'lua/README.md',
    description: 'The Lua runtime, its settings and the native accelerator',
  },
  {
    name: 'Lessons Learned',
    file: 'Docs/Doc_Common.md',
    description: 'Protocol surprises and the quirks of each interpreter and engine',
  },
];

/** The guide at `file` (a repository path, `/`-separated), if the VSIX carries it. */
export function guideAt(file: string): Guide | undefined {
  return GUIDES.find((guide) => guide.file === file);
}
