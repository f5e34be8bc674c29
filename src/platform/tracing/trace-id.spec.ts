import { traceIdFrom } from './trace-id.js';

describe('traceIdFrom', () => {
  it('reuses the trace-id of a valid traceparent', () => {
    expect(traceIdFrom('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it.each([undefined, '', 'garbage', '00-00000000000000000000000000000000-00f067aa0ba902b7-01', ['a', 'b']])(
    'makes a fresh id for %p',
    (header) => expect(traceIdFrom(header as never)).toMatch(/^[\da-f]{32}$/),
  );
});
