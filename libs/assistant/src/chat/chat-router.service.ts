import { Injectable } from '@nestjs/common';
import type { LlmMessage } from '@app/planner';
import { ChatTrace } from './chat-trace';
import { routerPrompt } from './chat-prompts';
import { CHAT_ROUTES, ChatRoute, DecisionSource } from './chat.types';
import { WebSearchProvider } from './search/web-search.provider';

const GREETING =
  /^\s*(hi|hello|hey|yo|thanks|thank you|thx|good (morning|afternoon|evening|night)|bye|goodbye|how are you|nice to meet you|안녕|반가|고마|감사|수고|좋은 (아침|하루|밤)|잘\s?(가|자|있)|ㅎㅇ|ㅋㅋ|ㅎㅎ)/i;
const WEB_HINT =
  /(인터넷|웹에서|웹 검색|구글|뉴스|최신|오늘의|현재 (환율|주가|날씨)|\b(internet|web|google|news|latest|today'?s|current (price|weather|exchange rate)|online)\b)/i;

/** Route by rules, for when no model is configured. */
export function routeByRules(message: string, webSearch: boolean): ChatRoute {
  const text = message.trim();
  if (GREETING.test(text) && text.length <= 60) return 'CHITCHAT';
  if (webSearch && WEB_HINT.test(text)) return 'WEB_SEARCH';
  return 'INTERNAL_SEARCH';
}

/** Router of the chat: INTERNAL_SEARCH | WEB_SEARCH | CHITCHAT. Any failure routes to INTERNAL_SEARCH. */
@Injectable()
export class ChatRouterService {
  constructor(private readonly web: WebSearchProvider) {}

  async route(
    message: string,
    history: LlmMessage[],
    trace: ChatTrace,
  ): Promise<{ route: ChatRoute; source: DecisionSource }> {
    const webSearch = this.web.configured;
    if (!trace.llmConfigured) return { route: routeByRules(message, webSearch), source: 'rules' };
    const response = await trace.callLlm('router', {
      messages: [
        { role: 'system', content: routerPrompt(webSearch) },
        ...history.slice(-4),
        { role: 'user', content: message },
      ],
      maxTokens: 50,
      temperature: 0,
    });
    if (response instanceof Error) {
      trace.warnings.push(`The router failed (${response.message}); searched the documents.`);
      return { route: 'INTERNAL_SEARCH', source: 'fallback' };
    }
    const text = (response.content ?? '').toUpperCase();
    const found = CHAT_ROUTES.map((route) => ({ route, at: text.indexOf(route) }))
      .filter((hit) => hit.at >= 0)
      .sort((a, b) => a.at - b.at)[0]?.route;
    if (!found) {
      trace.warnings.push('The router answered with no route; searched the documents.');
      return { route: 'INTERNAL_SEARCH', source: 'fallback' };
    }
    if (found === 'WEB_SEARCH' && !webSearch) return { route: 'INTERNAL_SEARCH', source: 'fallback' };
    return { route: found, source: 'llm' };
  }
}
