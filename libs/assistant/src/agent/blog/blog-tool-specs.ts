import type { CreateAssetInput, ToolAssetSpec } from '@app/asset-registry';

/** Placeholder for the blog backend's base URL in the JSON specs under examples/tool-assets/blog. */
export const BLOG_BASE_URL_PLACEHOLDER = '${BLOG_API_BASE_URL}';
/**
 * The secret the blog tools send as X-User-Api-Key when published by the CLI or BlogToolsPublisher: the server's
 * OPS_SECRET_BLOG_API_KEY, usable only by tenants granted it in SECRET_ENV_GRANTS.
 */
export const BLOG_SECRET_REF = 'env:OPS_SECRET_BLOG_API_KEY';
/** The same secret from the tenant's own secret store (`PUT /api/secrets/BLOG_API_KEY`): the JSON examples use it. */
export const BLOG_TENANT_SECRET_REF = 'secret:BLOG_API_KEY';

/** What the blog tools tell the planner (the same in examples/tool-assets/blog). */
export const BLOG_POSTS_HINTS = {
  examples: {
    ko: [
      '내 블로그 글 스타일로 초안 써줘',
      '내가 예전에 쓴 블로그 글 보여줘',
      '최근 블로그 포스트 목록',
      '내 블로그 글투 참고해서 글 써줘',
    ],
    en: [
      "draft a post in my blog's style",
      'show my recent blog posts',
      'what did I write on my blog before',
      'write something in the tone of my blog',
    ],
  },
  keywords: {
    ko: ['블로그', '내 글', '글 스타일', '글투', '초안'],
    en: ['blog', 'my posts', 'my writing', 'style', 'draft'],
  },
  not_for: {
    ko: ['이 글을 블로그에 올려줘', '블로그에 게시해줘'],
    en: ['publish this on my blog', 'post it to my blog'],
  },
};
export const POST_ARTICLE_HINTS = {
  examples: {
    ko: [
      '이 글을 블로그에 올려줘',
      '블로그에 게시해줘',
      '작성한 글 블로그에 발행해줘',
      '이거 내 블로그에 포스팅해',
    ],
    en: [
      'publish this on my blog',
      'post it to my blog',
      'put this article on the blog',
      'publish the draft',
    ],
  },
  keywords: {
    ko: ['올려줘', '게시', '발행', '포스팅', '블로그 글 작성'],
    en: ['publish', 'post it', 'post this', 'write a blog post', 'blog post about'],
  },
  not_for: {
    ko: ['내 블로그 글 보여줘', '블로그 글 스타일 알려줘'],
    en: ['show my blog posts', "what is my blog's style"],
  },
};

/** The tool spec of an asset, as the tool factory takes it (the asset's `tool_type` is the spec's kind). */
export function toToolAssetSpec(asset: CreateAssetInput): ToolAssetSpec {
  const { tool_type, ...spec } = asset.spec as Omit<ToolAssetSpec, 'name' | 'description' | 'kind'> & {
    tool_type: ToolAssetSpec['kind'];
  };
  return { ...spec, kind: tool_type, name: asset.name, description: asset.description ?? '' };
}

/**
 * The seeds' blog tools as `tool` assets (the registry's input; examples/tool-assets/blog holds them as the
 * flat body of `POST /api/assets`) calling a blog backend at
 * `baseUrl`: `get_user_blog_posts` (the user's posts, for style and history) and
 * `post_blog_article` (publishes; has side effects). `user_id` is injected by the agent, never
 * chosen by the model.
 */
export function blogToolAssets(baseUrl: string, secretRef: string = BLOG_SECRET_REF): CreateAssetInput[] {
  const base = baseUrl.replace(/\/+$/, '');
  return [
    {
      asset_type: 'tool',
      name: 'get_user_blog_posts',
      description:
        "Get the user's blog posts (title, markdown content, tags, created_at), newest first, to follow their writing style or refer to what they wrote before. 사용자의 블로그 글 목록 조회: 블로그 기록이나 글 스타일을 참고할 때 사용.",
      tags: ['blog'],
      spec: {
        tool_type: 'http',
        tool_config: {
          method: 'GET',
          url: `${base}/api/v1/blog/posts`,
          query: { user_id: '{{input.user_id}}', limit: '{{input.limit}}', offset: '{{input.offset}}' },
          headers: { 'X-User-Api-Key': '{{secret}}' },
          secret_ref: secretRef,
          timeout_ms: 10_000,
        },
        tool_input_schema: {
          type: 'object',
          properties: {
            user_id: { type: ['integer', 'string'], description: 'Whose posts (set by the agent)' },
            limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'Posts per page' },
            offset: { type: 'integer', minimum: 0, default: 0, description: 'Posts to skip' },
          },
          required: ['user_id'],
          additionalProperties: false,
        },
        tool_output_schema: null,
        has_side_effects: false,
        planning_hints: BLOG_POSTS_HINTS,
      },
    },
    {
      asset_type: 'tool',
      name: 'post_blog_article',
      description:
        "Publish a Markdown article on the user's blog. Only when the user explicitly asks to publish or post (블로그에 올려줘, 게시해줘); for drafts, answer with the Markdown instead. 블로그 글 게시.",
      tags: ['blog'],
      spec: {
        tool_type: 'http',
        tool_config: {
          method: 'POST',
          url: `${base}/api/v1/blog/posts`,
          headers: { 'X-User-Api-Key': '{{secret}}', 'X-User-Id': '{{context.user_id}}' },
          body: { title: '{{input.title}}', markdown: '{{input.markdown}}', tags: '{{input.tags}}' },
          secret_ref: secretRef,
          timeout_ms: 15_000,
        },
        tool_input_schema: {
          type: 'object',
          properties: {
            title: { type: 'string', minLength: 1, maxLength: 200 },
            markdown: { type: 'string', minLength: 1, description: 'The article body in Markdown' },
            tags: { type: 'array', items: { type: 'string', maxLength: 50 }, maxItems: 20, default: [] },
          },
          required: ['title', 'markdown'],
          additionalProperties: false,
        },
        tool_output_schema: null,
        has_side_effects: true,
        planning_hints: POST_ARTICLE_HINTS,
      },
    },
  ];
}
