import type { ToolDefinition } from '@app/tools';
import { applyRequestedActions, clauseRequest, toolActions, withQuestionMarks } from './requested-action';

/** Tools of an invented library lending desk: what the mechanism reads is their published data alone. */
function tool(
  name: string,
  description: string,
  sideEffects: boolean,
  properties: Record<string, unknown> = {},
): ToolDefinition {
  return {
    name,
    description,
    input_schema: { type: 'object', properties },
    output_schema: null,
    has_side_effects: sideEffects,
  } as unknown as ToolDefinition;
}

const findLoan = tool(
  'find_loans',
  'Look up loans by member or title. Read only: to change a loan use edit_loan.',
  false,
);
const editLoan = tool('edit_loan', 'Changes a loan: renew it or return it early.', true, {
  action: { type: 'string', enum: ['renew', 'cancel'] },
});
const newMember = tool('member_signup', '회원 등록. Registers a new member card.', true);
const tools = [findLoan, editLoan, newMember];
const scores = { find_loans: 0.9, edit_loan: 0.2, member_signup: 0.3 };

describe('clauseRequest', () => {
  it('reads English imperatives, with the words that keep them requests', () => {
    expect([...clauseRequest('Cancel loan L-1').write]).toEqual(['cancel']);
    expect([...clauseRequest('can you please refund the fee').write]).toEqual(['refund']);
    expect([...clauseRequest("I'd like to delete my account").write]).toEqual(['delete']);
    expect([...clauseRequest('if so, send the member a reminder').write]).toEqual(['send']);
  });

  it('does not read a past participle or a noun as a request', () => {
    expect(clauseRequest('list cancelled loans').write.size).toBe(0);
    expect(clauseRequest('list cancelled loans').read).toBe(true);
    expect(clauseRequest('were any refunds made today?').write.size).toBe(0);
    expect(clauseRequest('order status for C-1').write.size).toBe(0);
    expect(clauseRequest('schedule for Monday?').read).toBe(true);
    expect([...clauseRequest('can you book L-1 for Monday?').write]).toEqual(['book']);
  });

  it('reads Korean request endings after an action noun or a verb stem', () => {
    expect([...clauseRequest('L-1 대출 취소해줘').write]).toEqual(['cancel']);
    expect([...clauseRequest('연체료 환불 처리 부탁해').write]).toEqual(['refund']);
    expect([...clauseRequest('반납일 좀 늘려 주세요').write]).toEqual(['extend']);
    expect([...clauseRequest('회원 카드 바꿔줘').write]).toEqual(['change']);
  });

  it('does not read a Korean adnominal or a reported request as one', () => {
    expect(clauseRequest('취소된 대출 목록').write.size).toBe(0);
    expect(clauseRequest('취소된 대출 목록').read).toBe(true);
    expect(clauseRequest('연장 요청 들어왔는데').write.size).toBe(0);
  });

  it('marks a Korean request whose action the lexicon does not know', () => {
    const request = clauseRequest('스티커 하나 넣어줘');
    expect(request.write.size).toBe(0);
    expect(request.unknownWrite).toBe(true);
  });
});

describe('toolActions', () => {
  it('reads the name, the first sentence of the description and the enum values', () => {
    expect([...toolActions(editLoan)].sort()).toEqual(['cancel', 'change']);
    expect([...toolActions(newMember)]).toEqual(['create']);
  });

  it('gives no action to a tool published as side-effect free', () => {
    expect(toolActions(findLoan).size).toBe(0);
  });
});

describe('applyRequestedActions', () => {
  it('answers an action no tool performs with no tool', () => {
    expect(applyRequestedActions(['Refund the late fee on L-1'], tools, [findLoan], scores)).toEqual([]);
  });

  it('gives a requested action the tool that performs it, and drops a tool that changes something else', () => {
    const chosen = applyRequestedActions(['L-1 대출 취소해줘'], tools, [newMember], scores);
    expect(chosen).toEqual([editLoan]);
  });

  it('keeps a reading tool for a part that asks to be shown something', () => {
    const chosen = applyRequestedActions(['find the loan of Kim', 'cancel it'], tools, [findLoan], scores);
    expect(chosen).toEqual([findLoan, editLoan]);
  });

  it('answers a question that only asks to be shown something without tools that change things', () => {
    expect(applyRequestedActions(['who signed up today?'], tools, [newMember], scores)).toEqual([findLoan]);
    expect(applyRequestedActions(['who signed up today?'], tools, [newMember], { find_loans: 0.1 })).toEqual(
      [],
    );
  });

  it('changes nothing when the question requests no known action and asks nothing', () => {
    expect(applyRequestedActions(['the printer on floor 2 is jammed'], tools, [newMember], scores)).toEqual([
      newMember,
    ]);
  });

  it('reads which of the tools taking a shaped value the question is for from what it requests', () => {
    const owners = new Set(['find_loans', 'edit_loan']);
    const none = { find_loans: 0, edit_loan: 0, member_signup: 0 };
    expect(applyRequestedActions(['L-1 due back yet?'], tools, [], none, owners)).toEqual([findLoan]);
    expect(applyRequestedActions(['loan L-1 details pls'], tools, [], none, owners)).toEqual([findLoan]);
    expect(applyRequestedActions(['cancel L-1'], tools, [], none, owners)).toEqual([editLoan]);
  });
});

describe('withQuestionMarks', () => {
  it('gives back the question mark splitting dropped, so a part asked as a question reads as one', () => {
    expect(
      withQuestionMarks('L-1 반납됐나? 그리고 회원 등록해줘', ['L-1 반납됐나', '회원 등록해줘']),
    ).toEqual(['L-1 반납됐나?', '회원 등록해줘']);
    expect(clauseRequest('L-1 반납됐나?').read).toBe(true);
  });
});
