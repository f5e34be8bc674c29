import { migrate } from '../../src/platform/database/database.js';

// Applies the real migrations to this run's database before a test file's tests.
beforeAll(async () => {
  if (process.env.DATABASE_URL?.includes('/integrations_test_')) await migrate(process.env.DATABASE_URL);
});
