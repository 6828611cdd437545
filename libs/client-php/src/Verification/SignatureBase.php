<?php

namespace Licensing\Verification;

/**
 * The RFC 9421 signature base of an answer, built as libs/signatures/message-signatures.ts
 * builds it: the answer's status and content digest, the request's method, path and query, the
 * request's content digest when it sent one, and the echoed nonce when it sent one.
 */
final class SignatureBase
{
    public const LABEL = 'licensing';
    public const NONCE_HEADER = 'licensing-nonce';
    public const ALGORITHM = 'ed25519';

    /**
     * The components a signature of an answer must cover, in order.
     *
     * @return array<int, array<string, mixed>>
     */
    public static function coveredComponents(bool $withNonce, bool $withRequestDigest): array
    {
        $components = [
            self::component('@status'),
            self::component('content-digest'),
            self::component('@method', true),
            self::component('@path', true),
            self::component('@query', true),
        ];
        if ($withRequestDigest) {
            $components[] = self::component('content-digest', true);
        }
        if ($withNonce) {
            $components[] = self::component(self::NONCE_HEADER);
        }
        return $components;
    }

    /**
     * The path and query a signature covers of a URL as sent: `?` alone when there is no query.
     *
     * @return array{path: string, query: string}
     */
    public static function requestTarget(string $url): array
    {
        $withoutFragment = explode('#', $url, 2)[0];
        if (preg_match('#^[a-z][a-z0-9+.-]*://[^/?]*#i', $withoutFragment, $match) === 1) {
            $withoutFragment = substr($withoutFragment, strlen($match[0]));
        }
        $question = strpos($withoutFragment, '?');
        $path = $question === false ? $withoutFragment : substr($withoutFragment, 0, $question);
        $query = $question === false ? '' : substr($withoutFragment, $question + 1);
        return ['path' => $path === '' ? '/' : $path, 'query' => '?' . $query];
    }

    /**
     * RFC 9421 2.5: one line per covered component, then the `@signature-params` line; null when
     * a component has no value or one this profile does not sign.
     *
     * @param array<string, mixed> $list the inner list of `Signature-Input`
     * @param array<string, string|null> $values by component: `@status`, `content-digest`,
     *   `licensing-nonce`, `@method;req`, `@path;req`, `@query;req`, `content-digest;req`
     */
    public static function build(array $list, array $values): ?string
    {
        $base = '';
        foreach ($list['items'] as $item) {
            $value = self::valueOf($item, $values);
            if ($value === null || preg_match('/[\r\n]/', $value) === 1) {
                return null;
            }
            $base .= StructuredFields::serializeItem($item) . ': ' . $value . "\n";
        }
        return $base . '"@signature-params": ' . StructuredFields::serializeInnerList($list);
    }

    /**
     * @param array<string, mixed> $item
     * @param array<string, string|null> $values
     */
    private static function valueOf(array $item, array $values): ?string
    {
        $fromRequest = false;
        foreach ($item['params'] as $param) {
            if ($param[0] !== 'req') {
                return null;
            }
            if ($param[1] === true) {
                $fromRequest = true;
            }
        }
        if (!is_string($item['value'])) {
            return null;
        }
        $name = $item['value'] . ($fromRequest ? ';req' : '');
        return array_key_exists($name, $values) ? $values[$name] : null;
    }

    /** @return array<string, mixed> */
    private static function component(string $name, bool $fromRequest = false): array
    {
        return ['value' => $name, 'params' => $fromRequest ? [['req', true]] : []];
    }
}
