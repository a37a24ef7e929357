/**
 * The checks of the MCP HTTP server on their own: which Host, Origin and Authorization headers a
 * loopback server accepts, and the reason it gives for the ones it refuses.
 */
import * as assert from 'node:assert/strict';
import {
  bearerCheck,
  checkHost,
  checkLocalRequest,
  checkOrigin,
} from '../../../src/mcp/transport/httpGuards';

describe('mcp/transport/httpGuards', () => {
  describe('checkHost', () => {
    it('accepts the loopback names of this server with its port, in any case', () => {
      for (const host of ['127.0.0.1:6009', 'localhost:6009', 'LOCALHOST:6009', '[::1]:6009']) {
        assert.equal(checkHost(host, 6009), undefined, host);
      }
    });

    it('takes a Host without a port as port 80', () => {
      assert.equal(checkHost('localhost', 80), undefined);
      assert.equal(checkHost('localhost', 6009), 'Host "localhost" names port 80, not 6009');
    });

    it('refuses a missing Host, another name (DNS rebinding) and another port', () => {
      assert.equal(checkHost(undefined, 6009), 'missing Host header');
      assert.equal(checkHost('', 6009), 'missing Host header');
      assert.equal(
        checkHost('evil.example:6009', 6009),
        'Host "evil.example:6009" is not a loopback name of this server',
      );
      assert.equal(
        checkHost('127.0.0.2:6009', 6009),
        'Host "127.0.0.2:6009" is not a loopback name of this server',
      );
      assert.equal(
        checkHost('127.0.0.1:6010', 6009),
        'Host "127.0.0.1:6010" names port 6010, not 6009',
      );
    });
  });

  describe('checkOrigin', () => {
    it('accepts no Origin (not a browser) and local http(s) origins on any port', () => {
      for (const origin of [
        undefined,
        'http://localhost:3000',
        'https://127.0.0.1',
        'http://[::1]:8080',
        'HTTP://LOCALHOST',
      ]) {
        assert.equal(checkOrigin(origin), undefined, String(origin));
      }
    });

    it('refuses remote origins, other schemes, credentials and what is not a URL', () => {
      for (const origin of [
        'http://evil.example',
        'http://localhost.evil.example',
        'file://localhost',
        'vscode-webview://localhost',
        'http://user@localhost',
        'http://user:secret@127.0.0.1',
      ]) {
        assert.equal(
          checkOrigin(origin),
          `Origin "${origin}" is not allowed (only local http(s) origins are)`,
        );
      }
      assert.equal(checkOrigin('null'), 'Origin "null" is not allowed');
    });
  });

  describe('checkLocalRequest', () => {
    it('checks the Host first, then the Origin', () => {
      assert.equal(checkLocalRequest({ host: 'localhost:7000' }, 7000), undefined);
      assert.equal(
        checkLocalRequest({ host: 'evil.example', origin: 'http://evil.example' }, 7000),
        'Host "evil.example" is not a loopback name of this server',
      );
      assert.equal(
        checkLocalRequest({ host: 'localhost:7000', origin: 'http://evil.example' }, 7000),
        'Origin "http://evil.example" is not allowed (only local http(s) origins are)',
      );
    });
  });

  describe('bearerCheck', () => {
    const check = bearerCheck('s3cret-token');

    it('accepts the token as "Bearer <token>", the scheme in any case', () => {
      assert.equal(check('Bearer s3cret-token'), undefined);
      assert.equal(check('bearer s3cret-token'), undefined);
      assert.equal(check('Bearer   s3cret-token  '), undefined);
    });

    it('says what is wrong, never repeating the token', () => {
      assert.equal(check(undefined), 'missing Authorization header (a bearer token is required)');
      assert.equal(check('Basic czNjcmV0'), 'the Authorization header is not "Bearer <token>"');
      assert.equal(check('Bearer a b'), 'the Authorization header is not "Bearer <token>"');
      for (const wrong of [
        'Bearer s3cret',
        'Bearer s3cret-token-and-more',
        'Bearer S3CRET-TOKEN',
      ]) {
        const problem = check(wrong);
        assert.equal(problem, 'wrong bearer token');
      }
    });
  });
});
