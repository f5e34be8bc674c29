import { DroppingClient } from './dropping-client.js';

describe('DroppingClient', () => {
  // Before: between pg-pool handing a new connection over and TypeORM listening to it, a backend
  // terminated at that moment emitted 'error' to no listener, which threw and ended the process.
  it('never leaves a connection error without a listener', () => {
    const client = new DroppingClient({ connectionString: 'postgres://postgres@127.0.0.1:5432/none' });
    expect(() => client.emit('error', new Error('terminating connection due to administrator command'))).not.toThrow();
  });
});
