import { classifySendError } from './webhook-sender.js';

const error = (fields: Record<string, unknown>) => Object.assign(new Error('x'), fields);

describe('classifySendError', () => {
  it.each([
    [error({ name: 'TimeoutError', code: 23 }), 'timeout'],
    [error({ code: 'UND_ERR_HEADERS_TIMEOUT' }), 'timeout'],
    [error({ code: 'UND_ERR_CONNECT_TIMEOUT' }), 'timeout'],
    [error({ code: 'ECONNREFUSED' }), 'connect'],
    [error({ code: 'UND_ERR_SOCKET', cause: error({ code: 'ECONNRESET' }) }), 'connect'],
    [error({ code: 'ENOTFOUND' }), 'dns'],
    [error({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), 'tls'],
    [error({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' }), 'tls'],
    [error({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }), 'tls'],
    [error({ cause: { code: 'CERT_HAS_EXPIRED' } }), 'tls'],
    [error({ code: 'UND_ERR_INVALID_ARG' }), 'protocol'],
    ['not an error', 'protocol'],
  ])('%o is %s', (thrown, kind) => {
    expect(classifySendError(thrown)).toBe(kind);
  });
});
