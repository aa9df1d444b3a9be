import { schemaProperties } from '../plan/schema-introspection.util';
import { isNameProperty, isOrganisationProperty, nameFor, organisationIn, personNames } from './person-names';

// A driving school's tools, invented: a lesson search by student and instructor, a student lookup.
const LESSONS = schemaProperties({
  type: 'object',
  properties: {
    student: { type: 'string', description: '수강생 이름 또는 학번' },
    instructor: { type: 'string', description: '담당 강사 이름' },
    school_name: { type: 'string', description: '학원 상호' },
    code: { type: 'string', pattern: '^L\\d{4}$' },
  },
});
const STUDENTS = schemaProperties({
  type: 'object',
  properties: {
    student_name: { type: 'string' },
    nickname: { type: 'string', description: '별명 (뽀삐, Max ...)' },
  },
});
const names = LESSONS.filter(isNameProperty);
const read = (query: string, property: string, properties = LESSONS) =>
  nameFor(
    properties.find((p) => p.name === property)!,
    properties.filter(isNameProperty),
    personNames(query, (w) => ['gangnam', 'lesson'].includes(w), new Set(['수강생', '강사'])),
  );

describe('people the question names', () => {
  it('knows the inputs that take a person, not an organisation', () => {
    expect(names.map((p) => p.name)).toEqual(['student', 'instructor']);
  });

  it('reads Korean names beside a title or role, before or after', () => {
    expect(personNames('김도윤 씨 다음주 수업 몇 번이야')).toEqual([{ name: '김도윤', role: '씨' }]);
    expect(personNames('정민호님 오늘 오세요?')[0].name).toBe('정민호');
    expect(personNames('보호자 정미경님 연락처')).toEqual([{ name: '정미경', role: '보호자' }]);
    // Words that start like a surname are not names.
    expect(personNames('이번주 강사 스케줄')).toEqual([]);
  });

  it('reads English names after a title or as two unknown capitalised words', () => {
    expect(personNames('is Ms. Garcia at Gangnam today?').map((m) => m.name)).toEqual(['Garcia']);
    expect(personNames('book Dr. Emily Cho for Friday').map((m) => m.name)).toEqual(['Emily Cho']);
    expect(personNames('Sarah Miller wants a lesson').map((m) => m.name)).toEqual(['Sarah Miller']);
    expect(personNames('Gangnam Lesson slots', (w) => ['gangnam', 'lesson'].includes(w))).toEqual([]);
    expect(personNames('Williams 라는 분 예약')[0].name).toBe('Williams');
  });

  it('gives each name input the person whose role it describes, or the one person named', () => {
    expect(read('박하은 수강생 수업 언제야', 'student')).toBe('박하은');
    expect(read('한정우 강사님 내일 스케줄', 'instructor')).toBe('한정우');
    expect(read('한정우 강사님 내일 스케줄', 'student')).toBeNull();
    expect(read('김도윤 씨 다음 수업', 'student_name', STUDENTS)).toBe('김도윤');
    expect(read('뽀삐라는 강아지 찾아줘', 'nickname', STUDENTS)).toBe('뽀삐');
  });

  it('reads an organisation for an input taking one: before a word for a business, or two capitalised words', () => {
    expect(LESSONS.map(isOrganisationProperty)).toEqual([false, false, true, false]);
    expect(organisationIn('그린팜 거래처 한달 발송량', [])).toBe('그린팜');
    expect(organisationIn('C310005 업체 픽업', [])).toBeNull();
    expect(organisationIn('for Hangyeol Foods: overdue?', personNames('for Hangyeol Foods: overdue?'))).toBe(
      'Hangyeol Foods',
    );
    expect(organisationIn('call Dr. Emily Cho', personNames('call Dr. Emily Cho'))).toBeNull();
  });
});
