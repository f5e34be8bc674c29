import { buildHandlerMap, handlerProblems, JobHandlerError } from './job-handlers.js';
import { JOB_NAMES } from './queue.types.js';

const jobs = ['a.run', 'b.run'];

describe('handlerProblems', () => {
  it('accepts exactly one handler per job', () => {
    expect(
      handlerProblems(
        [
          { job: 'a.run', location: 'A.run' },
          { job: 'b.run', location: 'B.run' },
        ],
        jobs,
      ),
    ).toEqual([]);
  });

  it('names a job without handler', () => {
    expect(handlerProblems([{ job: 'a.run', location: 'A.run' }], jobs)).toEqual(['job b.run has no @OnJob handler']);
  });

  it('names a job with two handlers and where they are', () => {
    expect(
      handlerProblems(
        [
          { job: 'a.run', location: 'A.run' },
          { job: 'a.run', location: 'Other.run' },
          { job: 'b.run', location: 'B.run' },
        ],
        jobs,
      ),
    ).toEqual(['job a.run has 2 handlers: A.run, Other.run']);
  });

  it('names a handler of an unknown job', () => {
    expect(
      handlerProblems(
        [
          { job: 'a.run', location: 'A.run' },
          { job: 'b.run', location: 'B.run' },
          { job: 'c.run', location: 'C.run' },
        ],
        jobs,
      ),
    ).toEqual(['C.run handles unknown job c.run']);
  });
});

describe('buildHandlerMap', () => {
  const run = async () => undefined;

  it('maps every job of the catalogue to its handler', () => {
    const map = buildHandlerMap(JOB_NAMES.map((job) => ({ job, location: `H.${job}`, run })));
    expect([...map.keys()].sort()).toEqual([...JOB_NAMES].sort());
  });

  it('refuses to start with a job left unhandled', () => {
    expect(() => buildHandlerMap([])).toThrow(JobHandlerError);
  });
});
