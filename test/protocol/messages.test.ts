/**
 * Message schemas against upstream's dialect: the frames below are from the protocol doc's
 * transcripts (numbers as strings, `0` and `"0"` ids, `[]` for empty objects, `"true"`/`false`).
 */
import * as assert from 'node:assert/strict';
import {
  Inbound,
  classifyFrame,
  envelopeSchema,
  ideToLuaSchemas,
  initSuccessInfo,
  replySchemas,
  wireBoolean,
  wireNumber,
} from '../../src/protocol';

function classify(text: string): Inbound {
  return classifyFrame(JSON.parse(text), text);
}

describe('messages', () => {
  describe('wire scalars', () => {
    it('reads numbers sent as strings', () => {
      assert.equal(wireNumber.parse('41'), 41);
      assert.equal(wireNumber.parse(' 254.19 '), 254.19);
      assert.equal(wireNumber.parse(7), 7);
      assert.equal(wireNumber.safeParse('NaN').success, false);
      assert.equal(wireNumber.safeParse('').success, false);
    });

    it("reads booleans in all of upstream's spellings", () => {
      for (const v of [true, 'true', 1, '1']) assert.equal(wireBoolean.parse(v), true);
      for (const v of [false, 'false', 0, '0', '']) assert.equal(wireBoolean.parse(v), false);
      assert.equal(wireBoolean.safeParse('yes').success, false);
    });
  });

  describe('envelope', () => {
    it('normalises "no id" spellings to null and keeps real ids as strings', () => {
      const ids = [undefined, null, 0, '0', '', '350802645', 350802645].map(
        (callbackId) => envelopeSchema.parse({ cmd: 'x', callbackId }).callbackId,
      );
      assert.deepEqual(ids, [null, null, null, null, null, '350802645', '350802645']);
    });
  });

  describe('classifyFrame', () => {
    it('reads an upstream stop notification', () => {
      const inbound = classify(
        '{"info":[],"stack":[{"line":"41","name":"文件名","index":"2","file":"sample.lua","oPath":"sample.lua"},{"line":"78","name":"文件名","index":"3","file":"sample.lua","oPath":"sample.lua"}],"cmd":"stopOnBreakpoint","callbackId":0}',
      );
      assert.equal(inbound.kind, 'notification');
      if (inbound.kind !== 'notification' || inbound.notification.kind !== 'stop') return;
      assert.equal(inbound.notification.cmd, 'stopOnBreakpoint');
      assert.deepEqual(inbound.notification.stack[0], {
        line: 41,
        name: '文件名',
        index: 2,
        file: 'sample.lua',
        oPath: 'sample.lua',
      });
      assert.deepEqual(inbound.notification.info, {});
    });

    it('reads our exception stop with its message', () => {
      const inbound = classify(
        '{"cmd":"stopOnException","callbackId":0,"info":{"exceptionText":"boom","uncaught":true},"stack":[{"file":"a.lua","line":3,"index":2,"name":"f","coroutine":"main"}]}',
      );
      assert.ok(inbound.kind === 'notification' && inbound.notification.kind === 'stop');
      if (inbound.kind !== 'notification' || inbound.notification.kind !== 'stop') return;
      assert.deepEqual(inbound.notification.info, { exceptionText: 'boom', uncaught: true });
      assert.equal(inbound.notification.stack[0].coroutine, 'main');
    });

    it('tells a step reply (real id) from the step stop notification (id 0)', () => {
      assert.equal(
        classify('{"info":[],"cmd":"stopOnStep","callbackId":"75470779"}').kind,
        'reply',
      );
      assert.equal(
        classify(
          '{"info":[],"stack":[{"line":"42","name":"n","index":"2","file":"s.lua"}],"cmd":"stopOnStep","callbackId":0}',
        ).kind,
        'notification',
      );
    });

    it('reads memory and log notifications', () => {
      const memory = classify(
        '{"info":{"memInfo":"254.1904296875"},"cmd":"refreshLuaMemory","callbackId":"0"}',
      );
      assert.deepEqual(memory, {
        kind: 'notification',
        notification: { kind: 'memory', cmd: 'refreshLuaMemory', kilobytes: 254.1904296875 },
      });
      const log = classify(
        '{"info":{"logInfo":"debugger init success"},"cmd":"output","callbackId":"0"}',
      );
      assert.deepEqual(log, {
        kind: 'notification',
        notification: { kind: 'log', cmd: 'output', text: 'debugger init success' },
      });
    });

    it("reads the runtime's trace lines (feature trace), and refuses one without text", () => {
      assert.deepEqual(
        classify('{"info":{"logInfo":"hook mode: off"},"cmd":"trace","callbackId":"0"}'),
        {
          kind: 'notification',
          notification: { kind: 'trace', cmd: 'trace', text: 'hook mode: off' },
        },
      );
      const bad = classify('{"info":{},"cmd":"trace","callbackId":"0"}');
      assert.ok(bad.kind === 'error' && bad.error.code === 'invalid-message');
    });

    it('recognises the id-less reply to the handshake breakpoint replay', () => {
      assert.deepEqual(classify('{"info":[],"cmd":"setBreakPoint","callbackId":"0"}'), {
        kind: 'unsolicited-reply',
        cmd: 'setBreakPoint',
      });
    });

    it('reports unknown commands and malformed payloads instead of throwing', () => {
      const unknown = classify('{"cmd":"whatIsThis","callbackId":"0","info":{}}');
      assert.ok(unknown.kind === 'error' && unknown.error.code === 'unknown-command');
      const badStop = classify('{"cmd":"stopOnEntry","callbackId":0,"stack":[{"line":"x"}]}');
      assert.ok(badStop.kind === 'error' && badStop.error.code === 'invalid-message');
      const notMessage = classify('[1,2,3]');
      assert.ok(notMessage.kind === 'error' && notMessage.error.code === 'invalid-envelope');
    });
  });

  describe('replies', () => {
    it('reads a base64-era variable list with mixed reference types', () => {
      const list = replySchemas.getVariable.parse([
        { index: 1, name: 'n', value: '5', type: 'number', variablesReference: '0' },
        { value: 'function: 0x5609d3d8f400', variablesReference: 1, type: 'function', name: 'add' },
      ]);
      assert.deepEqual(
        list.map((v) => [v.name, v.variablesReference]),
        [
          ['n', 0],
          ['add', 1],
        ],
      );
    });

    it('reads REPL replies with isSuccess as "true" or false', () => {
      const ok = replySchemas.runREPLExpression.parse([
        { type: 'number', name: 'Exp', value: '50', isSuccess: 'true', variablesReference: '0' },
      ]);
      const failed = replySchemas.runREPLExpression.parse([
        { type: 'string', name: 'Exp', value: 'x', isSuccess: false, variablesReference: '0' },
      ]);
      assert.equal(ok[0].isSuccess, true);
      assert.equal(failed[0].isSuccess, false);
    });

    it('reads setVariable replies whose value is a JSON number', () => {
      const reply = replySchemas.setVariable.parse({
        type: 'number',
        name: 'total',
        value: 100,
        tip: '变量 total 赋值成功',
        variablesReference: '0',
        success: 'true',
      });
      assert.equal(reply.value, '100');
      assert.equal(reply.success, true);
    });

    it('reads initSuccess replies from upstream and from our runtime', () => {
      const upstream = replySchemas.initSuccess.parse({
        isNeedB64EncodeStr: 'true',
        UseHookLib: '0',
        debuggerVer: '3.3.1',
        UseLoadstring: '1',
      });
      assert.equal(upstream.isNeedB64EncodeStr, true);
      assert.equal(upstream.UseHookLib, false);
      assert.equal(upstream.runtime, undefined);
      const ours = replySchemas.initSuccess.parse({
        debuggerVer: '3.3.1',
        runtime: 'luapanda-mcp',
        features: ['pause', 'exceptions'],
      });
      assert.deepEqual(ours.features, ['pause', 'exceptions']);
    });

    it('reads setBreakPoint replies with and without per-breakpoint results', () => {
      assert.deepEqual(replySchemas.setBreakPoint.parse([]), { results: undefined });
      const ours = replySchemas.setBreakPoint.parse({
        results: [{ line: '3', verified: false, message: 'bad condition' }],
      });
      assert.deepEqual(ours.results, [{ line: 3, verified: false, message: 'bad condition' }]);
    });
  });

  describe('requests', () => {
    it('builds an initSuccess that upstream Lua accepts: every value a string', () => {
      const info = initSuccessInfo({
        stopOnEntry: true,
        luaFileExtension: '.lua.txt',
        logLevel: 2,
      });
      for (const value of Object.values(info)) assert.equal(typeof value, 'string');
      assert.equal(info.stopOnEntry, 'true');
      assert.equal(info.luaFileExtension, 'lua.txt');
      assert.equal(info.logLevel, '2');
      assert.ok(ideToLuaSchemas.initSuccess.safeParse(info).success);
    });

    it('asks for runtime trace lines only when told to', () => {
      assert.equal(initSuccessInfo({}).trace, undefined);
      assert.equal(initSuccessInfo({ runtimeTrace: false }).trace, undefined);
      const info = initSuccessInfo({ runtimeTrace: true });
      assert.equal(info.trace, 'true');
      assert.ok(ideToLuaSchemas.initSuccess.safeParse(info).success);
    });

    it('spells truncatedOPath and distinguishSameNameFile the 3.1.80 way too', () => {
      // Upstream's 3.1.80 file lower-cases info.TruncatedOPath: without it the game dies.
      const info = initSuccessInfo({ truncatedOPath: 'Assets/', distinguishSameNameFile: true });
      assert.equal(info.TruncatedOPath, 'Assets/');
      assert.equal(info.truncatedOPath, 'Assets/');
      assert.equal(info.DistinguishSameNameFile, 'true');
      assert.equal(info.distinguishSameNameFile, 'true');
    });

    it('accepts the breakpoint request of the protocol doc', () => {
      const parsed = ideToLuaSchemas.setBreakPoint.parse({
        path: '/abs/path/samples/sample.lua',
        bks: [
          { verified: true, type: 2, line: 41 },
          { verified: true, type: '0', line: '34', condition: 'b == 3' },
          { verified: true, type: 1, line: 103, logMessage: 'reached the end' },
        ],
      });
      assert.deepEqual(
        parsed.bks.map((b) => [b.type, b.line]),
        [
          [2, 41],
          [0, 34],
          [1, 103],
        ],
      );
      assert.equal(
        ideToLuaSchemas.setBreakPoint.safeParse({ path: 'x', bks: [{ type: 7, line: 1 }] }).success,
        false,
      );
    });
  });
});
