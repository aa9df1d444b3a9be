import { BranchRow, fuseBranches } from './search.repository';

const branch = (...entries: Array<[string, number, number]>): BranchRow[] =>
  entries.map(([chunk_id, score, norm], i) => ({ chunk_id, score, norm, rank: String(i + 1) }));

const rrf = { fusion: 'rrf' as const, rrfK: 60, textWeight: 1, vectorWeight: 1, topK: 10 };
const convex = { ...rrf, fusion: 'convex' as const };

describe('hybrid fusion', () => {
  it('rrf: sums weight / (k + rank) over the branches a chunk is in', () => {
    const fused = fuseBranches(
      { ...rrf, vectorWeight: 0.5 },
      branch(['a', 9, 1], ['b', 5, 0.5]),
      branch(['b', 0.9, 0.9], ['c', 0.8, 0.8]),
    );
    const byId = Object.fromEntries(fused.map((f) => [f.chunk_id, f.fused]));
    expect(byId.a).toBeCloseTo(1 / 61, 12);
    expect(byId.b).toBeCloseTo(1 / 62 + 0.5 / 61, 12);
    expect(byId.c).toBeCloseTo(0.5 / 62, 12);
    expect(fused.map((f) => f.chunk_id)).toEqual(['b', 'a', 'c']);
  });

  it('rrf ignores the scores: only the ranks count', () => {
    const low = fuseBranches(rrf, branch(['a', 0.001, 0.001]), []);
    const high = fuseBranches(rrf, branch(['a', 1000, 1]), []);
    expect(low[0].fused).toBe(high[0].fused);
  });

  it('a larger k flattens the difference between ranks', () => {
    const gap = (k: number) => {
      const [first, second] = fuseBranches({ ...rrf, rrfK: k }, branch(['a', 1, 1], ['b', 1, 1]), []);
      return first.fused / second.fused;
    };
    expect(gap(1)).toBeCloseTo(1.5, 12);
    expect(gap(1000)).toBeLessThan(1.001);
  });

  it('convex: sums weight * norm, so a strong single-branch hit can beat a weak hit in both', () => {
    const fused = fuseBranches(
      { ...convex, textWeight: 1, vectorWeight: 0.2 },
      branch(['strong', 12, 1], ['both', 2, 0.2]),
      branch(['both', 0.5, 0.5]),
    );
    expect(fused.map((f) => [f.chunk_id, f.fused])).toEqual([
      ['strong', 1],
      ['both', 0.2 + 0.2 * 0.5],
    ]);
  });

  it('a zero weight silences its branch', () => {
    const fused = fuseBranches({ ...convex, vectorWeight: 0 }, branch(['t', 1, 0.3]), branch(['v', 1, 1]));
    expect(fused).toEqual([
      expect.objectContaining({ chunk_id: 't', fused: 0.3 }),
      expect.objectContaining({ chunk_id: 'v', fused: 0 }),
    ]);
  });

  it('reports each branch rank and score, null where the chunk was not a candidate', () => {
    const [only] = fuseBranches(rrf, [], branch(['v', 0.7, 0.7]));
    expect(only).toEqual({
      chunk_id: 'v',
      text_rank: null,
      text_score: null,
      vector_rank: '1',
      vector_score: 0.7,
      fused: 1 / 61,
    });
  });

  it('breaks ties by chunk id, so equal scores always come back in one order', () => {
    const fused = fuseBranches(rrf, branch(['z', 1, 1]), branch(['m', 1, 1]));
    expect(fused.map((f) => f.chunk_id)).toEqual(['m', 'z']);
  });

  it('keeps the first top_k, and nothing for no candidates', () => {
    const many = branch(
      ...Array.from({ length: 30 }, (_, i): [string, number, number] => [
        `c${String(i).padStart(2, '0')}`,
        1,
        1,
      ]),
    );
    expect(fuseBranches({ ...rrf, topK: 5 }, many, []).map((f) => f.chunk_id)).toEqual([
      'c00',
      'c01',
      'c02',
      'c03',
      'c04',
    ]);
    expect(fuseBranches(rrf, [], [])).toEqual([]);
  });
});
