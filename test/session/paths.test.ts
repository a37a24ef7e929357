// Unit tests of the pure path logic, with Windows-style and POSIX inputs alike.
import * as assert from 'node:assert/strict';
import {
  SourceMapper,
  chunkNameToPath,
  isAbsolutePath,
  normalizePath,
  samePath,
  toWirePath,
} from '../../src/session/paths';

describe('session/paths', () => {
  describe('normalizePath', () => {
    it('turns backslashes forward, lower-cases the drive letter and resolves dots', () => {
      assert.equal(normalizePath('C:\\Game\\Scripts\\..\\.\\main.lua'), 'c:/Game/main.lua');
      assert.equal(normalizePath('D:/a//b/./c.lua'), 'd:/a/b/c.lua');
      assert.equal(normalizePath('/home/me/../me/x.lua'), '/home/me/x.lua');
      assert.equal(normalizePath('a\\b\\..\\c.lua'), 'a/c.lua');
      assert.equal(normalizePath('C:\\..\\x.lua'), 'c:/x.lua');
      assert.equal(normalizePath('\\\\server\\share\\x.lua'), '//server/share/x.lua');
    });

    it('recognises absolute paths of both worlds', () => {
      assert.ok(isAbsolutePath('C:\\x.lua'));
      assert.ok(isAbsolutePath('c:/x.lua'));
      assert.ok(isAbsolutePath('/x.lua'));
      assert.ok(!isAbsolutePath('x/y.lua'));
      assert.ok(!isAbsolutePath('@x.lua'));
    });

    it('compares case-insensitively only when asked', () => {
      assert.ok(samePath('C:\\Game\\Main.lua', 'c:/game/main.lua', false));
      assert.ok(!samePath('C:\\Game\\Main.lua', 'c:/game/main.lua', true));
      assert.ok(samePath('/ゲーム/玩家.lua', '/ゲーム/玩家.lua', true));
    });
  });

  describe('chunkNameToPath', () => {
    it('strips @ and ./ and line ends', () => {
      assert.equal(chunkNameToPath('@./game/player.lua'), 'game/player.lua');
      assert.equal(chunkNameToPath('@.\\game\\player.lua'), 'game\\player.lua');
      assert.equal(chunkNameToPath('@main.lua\r'), 'main.lua');
    });

    it('turns dotted module names into paths with the extension', () => {
      assert.equal(chunkNameToPath('game.player'), 'game/player.lua');
      assert.equal(chunkNameToPath('@game.systems.ai'), 'game/systems/ai.lua');
      assert.equal(chunkNameToPath('game.player', 'lua.txt'), 'game/player.lua.txt');
      assert.equal(chunkNameToPath('player.lua.txt', 'lua.txt'), 'player.lua.txt');
      assert.equal(chunkNameToPath('main'), 'main.lua');
    });
  });

  describe('toWirePath', () => {
    const settings = { cwd: 'C:\\Game', caseSensitive: false, luaFileExtension: '' };
    it('sends the unified path of the file', () => {
      assert.equal(toWirePath('C:\\Game\\Scripts\\main.lua', settings), 'c:/Game/Scripts/main.lua');
    });
    it('applies docPathReplace from local to remote', () => {
      const replace = {
        ...settings,
        docPathReplace: ['/data/app/lua', 'C:\\Game\\Scripts'] as const,
      };
      assert.equal(toWirePath('c:\\game\\scripts\\ai\\x.lua', replace), '/data/app/lua/ai/x.lua');
      assert.equal(toWirePath('D:\\other\\x.lua', replace), 'd:/other/x.lua');
    });
  });

  describe('SourceMapper', () => {
    const windowsFiles = [
      'C:\\Game\\main.lua',
      'C:\\Game\\ui\\util.lua',
      'C:\\Game\\net\\util.lua',
      'C:\\Game\\Systems\\AI\\Brain.lua',
      'C:\\Game\\角色\\玩家.lua',
      'C:\\Game\\data\\config.lua.txt',
    ];
    const mapper = new SourceMapper(
      { cwd: 'C:\\Game', caseSensitive: false, luaFileExtension: '' },
      windowsFiles,
    );

    it('maps a bare file name (autoPathMode) to the workspace file', () => {
      assert.equal(mapper.resolve({ file: 'main.lua', oPath: 'main.lua' }), 'C:\\Game\\main.lua');
    });

    it('maps relative chunk names with @ and ./ prefixes', () => {
      assert.equal(mapper.resolve({ file: '@./main.lua' }), 'C:\\Game\\main.lua');
      assert.equal(
        mapper.resolve({ file: 'brain.lua', oPath: '/systems/ai/brain.lua' }),
        'C:\\Game\\Systems\\AI\\Brain.lua',
      );
    });

    it('tells same-name files apart by the rest of oPath', () => {
      assert.equal(
        mapper.resolve({ file: 'util.lua', oPath: 'ui/util.lua' }),
        'C:\\Game\\ui\\util.lua',
      );
      assert.equal(
        mapper.resolve({ file: 'util.lua', oPath: 'net/util.lua' }),
        'C:\\Game\\net\\util.lua',
      );
      assert.equal(
        mapper.resolve({ file: 'util.lua', oPath: 'c:/game/net/util.lua' }),
        'C:\\Game\\net\\util.lua',
      );
    });

    it('maps dotted module names', () => {
      assert.equal(
        mapper.resolve({ file: 'systems.ai.brain' }),
        'C:\\Game\\Systems\\AI\\Brain.lua',
      );
    });

    it('maps absolute Windows paths case-insensitively, whatever the separators', () => {
      assert.equal(
        mapper.resolve({ file: 'c:/game/systems/ai/brain.lua' }),
        'C:\\Game\\Systems\\AI\\Brain.lua',
      );
      assert.equal(mapper.resolve({ file: 'C:\\GAME\\MAIN.LUA' }), 'C:\\Game\\main.lua');
    });

    it('maps non-ASCII names', () => {
      assert.equal(
        mapper.resolve({ file: '玩家.lua', oPath: '角色/玩家.lua' }),
        'C:\\Game\\角色\\玩家.lua',
      );
    });

    it('honours luaFileExtension-style names', () => {
      assert.equal(mapper.resolve({ file: 'config.lua.txt' }), 'C:\\Game\\data\\config.lua.txt');
    });

    it('keeps an absolute path outside the workspace and gives up on unknown names', () => {
      assert.equal(mapper.resolve({ file: 'D:\\libs\\json.lua' }), 'D:\\libs\\json.lua');
      assert.equal(mapper.resolve({ file: 'nowhere.lua' }), undefined);
    });

    it('maps remote paths back through docPathReplace', () => {
      const remote = new SourceMapper(
        {
          cwd: 'C:\\Game',
          caseSensitive: false,
          luaFileExtension: '',
          docPathReplace: ['/sdcard/game', 'C:\\Game'],
        },
        windowsFiles,
      );
      assert.equal(remote.resolve({ file: '/sdcard/game/ui/util.lua' }), 'C:\\Game\\ui\\util.lua');
    });

    it('is case-sensitive when pathCaseSensitivity is on', () => {
      const strict = new SourceMapper({ cwd: '/game', caseSensitive: true, luaFileExtension: '' }, [
        '/game/Main.lua',
      ]);
      assert.equal(strict.resolve({ file: 'main.lua' }), undefined);
      assert.equal(strict.resolve({ file: 'Main.lua' }), '/game/Main.lua');
    });

    it('learns files added later (breakpoints outside the scan)', () => {
      const late = new SourceMapper({ cwd: '/w', caseSensitive: false, luaFileExtension: '' });
      assert.equal(late.resolve({ file: 'x.lua' }), undefined);
      late.addFile('/elsewhere/x.lua');
      assert.equal(late.resolve({ file: 'x.lua' }), '/elsewhere/x.lua');
    });
  });
});
