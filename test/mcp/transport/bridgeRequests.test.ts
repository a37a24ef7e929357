/**
 * The bridge's book of requests on its own: which client requests a lost session takes with it,
 * which stay (not yet sent, or sent on another session), and which answers of the client to a
 * server request are forwarded.
 */
import * as assert from 'node:assert/strict';
import { BridgeRequests } from '../../../src/mcp/transport/bridgeRequests';

describe('mcp/transport/bridgeRequests', () => {
  it('a lost session takes only the requests it was sent', () => {
    const book = new BridgeRequests();
    book.clientRequest(1, 'tools/call');
    book.clientRequest('b', 'tools/list');
    book.clientRequest(3, 'ping');
    book.sent(1, 1);
    book.sent('b', 2);
    // 3 was never sent: it waits for the next session.
    assert.deepEqual(book.takeLostOn(1), [{ id: 1, method: 'tools/call' }]);
    assert.deepEqual(book.takeLostOn(1), []);
    assert.deepEqual(book.waiting(), ['b', 3]);
  });

  it('an answered or cancelled request is settled once', () => {
    const book = new BridgeRequests();
    book.clientRequest(7, 'tools/call');
    book.sent(7, 1);
    assert.equal(book.settle(7), true);
    assert.equal(book.settle(7), false);
    book.sent(7, 1); // a late send of a settled request records nothing
    assert.deepEqual(book.takeLostOn(1), []);
    assert.deepEqual(book.waiting(), []);
  });

  it('clear forgets every waiting request', () => {
    const book = new BridgeRequests();
    book.clientRequest(1, 'a');
    book.clientRequest(2, 'b');
    book.clear();
    assert.deepEqual(book.waiting(), []);
  });

  it("forwards the client's answer only to the session that asked", () => {
    const book = new BridgeRequests();
    book.serverRequest('s1', 1);
    book.serverRequest('s2', 2);
    assert.equal(book.clientAnswer('s1', 2), false, 'session 1 is gone');
    assert.equal(book.clientAnswer('s2', 2), true);
    assert.equal(book.clientAnswer('s2', 3), true, 'a second answer is not held back');
    assert.equal(book.clientAnswer('unknown', 2), true, 'an answer to no known request passes');
  });
});
