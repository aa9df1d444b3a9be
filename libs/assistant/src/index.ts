export { AssistantModule } from './assistant.module';
export { AssistantConfig } from './assistant.config';
export { ToolCallingAgentService, AGENT_SYSTEM_PROMPT } from './agent/tool-calling-agent.service';
export { AgentOptions } from './agent/agent-options';
export { AgentRunJanitor } from './agent/runs/agent-run.janitor';
export { RunWebhookService } from './agent/webhooks/run-webhook.service';
export type {
  AgentRequest,
  AgentResult,
  AgentRunView,
  AgentToolCall,
  AgentLlmCall,
} from './agent/agent.types';
export { BlogToolsPublisher, type BlogToolPublication } from './agent/blog/blog-tools.publisher';
export {
  blogToolAssets,
  toToolAssetSpec,
  BLOG_BASE_URL_PLACEHOLDER,
  BLOG_SECRET_REF,
  BLOG_TENANT_SECRET_REF,
} from './agent/blog/blog-tool-specs';
export { ChatService } from './chat/chat.service';
export { ChatException, ChatExceptionCode } from './chat/chat.exception';
export { DocumentRetriever } from './chat/search/document-retriever';
export { WebSearchProvider, SearxngWebSearchProvider } from './chat/search/web-search.provider';
export type { Passage } from './chat/search/passage';
export type * from './chat/chat.types';
