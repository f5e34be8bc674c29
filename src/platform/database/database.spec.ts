import { unansweredQueryMs } from './database.js';

describe('unansweredQueryMs', () => {
  it('waits the statement timeout and 2 s more, never past what a Node timer can wait (a longer one fires at once)', () => {
    expect(unansweredQueryMs({ DATABASE_STATEMENT_TIMEOUT_MS: 10_000 })).toBe(12_000);
    expect(unansweredQueryMs({ DATABASE_STATEMENT_TIMEOUT_MS: 2_147_483_647 })).toBe(2_147_483_647);
  });
});
