import { symbolCandidates } from './code-query.service';

describe('symbolCandidates', () => {
  it.each([
    ['authenticate', ['authenticate']],
    ['Ky.create', ['Ky.create']],
    ['authenticate 함수가 어떤 함수를 호출하는지 알려줘', ['authenticate']],
    ['which functions does authenticate call', ['authenticate']],
    ['what calls getUserPosts and HttpClient.send?', ['getUserPosts', 'HttpClient.send']],
    ['사용자 인증 로직', []],
  ])('%s', (query, names) => {
    expect(symbolCandidates(query)).toEqual(names);
  });
});
