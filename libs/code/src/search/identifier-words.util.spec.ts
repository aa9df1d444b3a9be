import { identifierWords, splitIdentifier } from './identifier-words.util';

describe('identifier words', () => {
  it.each([
    ['getUserPosts', ['get', 'user', 'posts']],
    ['HTTPError', ['http', 'error']],
    ['parse_json_body', ['parse', 'json', 'body']],
    ['_retry', ['retry']],
    ['toJSON2', ['to', 'json2']],
  ])('splits %s', (identifier, words) => {
    expect(splitIdentifier(identifier)).toEqual(words);
  });

  it('lists each multi-word identifier of a text once', () => {
    expect(identifierWords('const getUserPosts = () => getUserPosts(id); x = a_b')).toEqual([
      'get user posts',
      'a b',
    ]);
  });
});
