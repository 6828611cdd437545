<?php

namespace Licensing\Tests\Support;

/**
 * What of PHP 8 a file uses that PHP 7.4 cannot run, read from its tokens (token_get_all, on
 * the PHP 8 that runs the tests): match, readonly, enum, `?->`, attributes, constructor
 * promotion, union and `mixed`/`never`/`static` types, named arguments, `new` in a default,
 * first-class callables, a catch without a variable, `$object::class`, a trailing comma in a
 * parameter list, throw as an expression, and the functions and classes PHP 8 added.
 */
final class Php74Syntax
{
    private const TOKENS = ['T_MATCH' => 'match', 'T_READONLY' => 'readonly', 'T_ENUM' => 'enum', 'T_NULLSAFE_OBJECT_OPERATOR' => 'the nullsafe operator ?->', 'T_ATTRIBUTE' => 'an attribute #['];
    private const FUNCTIONS = ['str_contains', 'str_starts_with', 'str_ends_with', 'array_is_list', 'get_debug_type', 'get_resource_id', 'fdiv', 'preg_last_error_msg', 'enum_exists', 'json_validate', 'mb_str_pad', 'array_find', 'array_any', 'array_all', 'str_increment', 'str_decrement', 'iterator_apply_all', 'openssl_cipher_key_length', 'stream_context_set_options', 'http_get_last_response_headers', 'memory_reset_peak_usage', 'ini_parse_quantity', 'sodium_crypto_stream_xchacha20_xor_ic', 'curl_upkeep'];
    private const CLASSES = ['Stringable', 'ValueError', 'UnhandledMatchError', 'WeakMap', 'PhpToken', 'Attribute', 'UnitEnum', 'BackedEnum', 'Random\\Randomizer', 'Override', 'SensitiveParameter', 'AllowDynamicProperties'];
    private const NEW_TYPES = ['mixed', 'never', 'false', 'null', 'true'];

    /** @return string[] what the code uses that PHP 7.4 lacks, each with its line */
    public static function problems(string $code): array
    {
        $tokens = array_values(array_filter(token_get_all($code), static function ($token): bool {
            return !is_array($token) || !in_array($token[0], [T_WHITESPACE, T_COMMENT, T_DOC_COMMENT], true);
        }));
        $problems = [];
        $line = 1;
        foreach ($tokens as $at => $token) {
            $line = is_array($token) ? $token[2] : $line;
            $found = self::problemAt($tokens, $at);
            if ($found !== null) {
                $problems[] = sprintf('line %d: %s', $line, $found);
            }
        }
        return $problems;
    }

    /** @param array<int, mixed> $tokens */
    private static function problemAt(array $tokens, int $at): ?string
    {
        $token = $tokens[$at];
        foreach (self::TOKENS as $name => $what) {
            if (defined($name) && self::is($token, constant($name))) {
                return $what;
            }
        }
        $previous = $at > 0 ? $tokens[$at - 1] : null;
        $next = isset($tokens[$at + 1]) ? $tokens[$at + 1] : null;
        if (self::isName($token) && $next === '(' && !self::isMember($previous)) {
            $function = strtolower(ltrim($token[1], '\\'));
            if (in_array($function, self::FUNCTIONS, true)) {
                return 'the PHP 8 function ' . $function . '()';
            }
        }
        if (self::isName($token) && in_array(ltrim($token[1], '\\'), self::CLASSES, true) && !self::isMember($previous)) {
            return 'the PHP 8 class ' . ltrim($token[1], '\\');
        }
        if (self::isName($token) && $next === ':' && ($previous === '(' || $previous === ',')) {
            return 'a named argument ' . $token[1] . ':';
        }
        if ($token === '(' && self::is($next, T_ELLIPSIS) && isset($tokens[$at + 2]) && $tokens[$at + 2] === ')') {
            return 'a first-class callable (...)';
        }
        if (self::is($token, T_VARIABLE) && self::is($next, T_DOUBLE_COLON) && isset($tokens[$at + 2]) && self::is($tokens[$at + 2], T_CLASS)) {
            return '$object::class';
        }
        if (self::is($token, T_CATCH)) {
            return self::catchProblem($tokens, $at);
        }
        if (self::is($token, T_THROW) && (in_array($previous, ['?', '='], true) || self::is($previous, T_COALESCE) || self::is($previous, T_DOUBLE_ARROW))) {
            return 'throw as an expression';
        }
        if ((self::is($token, T_FUNCTION) || self::is($token, T_FN)) && !self::is($previous, T_USE) && !self::is($previous, T_CONST)) {
            return self::signatureProblem($tokens, $at);
        }
        return null;
    }

    /** @param array<int, mixed> $tokens */
    private static function catchProblem(array $tokens, int $at): ?string
    {
        for ($i = $at + 1; isset($tokens[$i]) && $tokens[$i] !== ')'; $i++) {
            if (self::is($tokens[$i], T_VARIABLE)) {
                return null;
            }
        }
        return 'a catch without a variable';
    }

    /**
     * The parameter list and return type of the function whose keyword is at `$at`.
     *
     * @param array<int, mixed> $tokens
     */
    private static function signatureProblem(array $tokens, int $at): ?string
    {
        $i = $at + 1;
        while (isset($tokens[$i]) && $tokens[$i] !== '(') {
            $i++;
        }
        $constructor = isset($tokens[$at + 1]) && self::is($tokens[$at + 1], T_STRING) && strtolower($tokens[$at + 1][1]) === '__construct';
        $depth = 0;
        $typed = true;
        for (; isset($tokens[$i]); $i++) {
            $token = $tokens[$i];
            if ($token === '(' || $token === '[') {
                $depth++;
                continue;
            }
            if ($token === ')' || $token === ']') {
                $depth--;
                if ($depth === 0) {
                    break;
                }
                continue;
            }
            if ($depth !== 1) {
                if (self::is($token, T_NEW)) {
                    return 'new in a default value';
                }
                continue;
            }
            if ($token === ',') {
                $typed = true;
                if (isset($tokens[$i + 1]) && $tokens[$i + 1] === ')') {
                    return 'a trailing comma in a parameter list';
                }
                continue;
            }
            if (self::is($token, T_VARIABLE)) {
                $typed = false;
            } elseif (self::is($token, T_NEW)) {
                return 'new in a default value';
            } elseif ($typed && $constructor && (self::is($token, T_PUBLIC) || self::is($token, T_PROTECTED) || self::is($token, T_PRIVATE))) {
                return 'constructor promotion';
            } elseif ($typed && ($token === '|' || (self::isAmpersand($token) && !self::is(isset($tokens[$i + 1]) ? $tokens[$i + 1] : null, T_VARIABLE) && !self::is(isset($tokens[$i + 1]) ? $tokens[$i + 1] : null, T_ELLIPSIS)))) {
                return 'a union or intersection type';
            } elseif ($typed && self::isName($token) && in_array(strtolower($token[1]), self::NEW_TYPES, true)) {
                return 'the type ' . $token[1];
            }
        }
        return self::returnTypeProblem($tokens, $i + 1);
    }

    /** @param array<int, mixed> $tokens */
    private static function returnTypeProblem(array $tokens, int $i): ?string
    {
        if (isset($tokens[$i]) && self::is($tokens[$i], T_USE)) {
            while (isset($tokens[$i]) && $tokens[$i] !== ')') {
                if ($tokens[$i] === ',' && isset($tokens[$i + 1]) && $tokens[$i + 1] === ')') {
                    return 'a trailing comma in a closure\'s use list';
                }
                $i++;
            }
            $i++;
        }
        if (!isset($tokens[$i]) || $tokens[$i] !== ':') {
            return null;
        }
        for ($i++; isset($tokens[$i]) && !in_array($tokens[$i], ['{', ';'], true) && !self::is($tokens[$i], T_DOUBLE_ARROW); $i++) {
            $token = $tokens[$i];
            if ($token === '|' || self::isAmpersand($token)) {
                return 'a union or intersection return type';
            }
            if (self::is($token, T_STATIC)) {
                return 'the return type static';
            }
            if (self::isName($token) && in_array(strtolower($token[1]), self::NEW_TYPES, true)) {
                return 'the return type ' . $token[1];
            }
        }
        return null;
    }

    /** @param mixed $token */
    private static function is($token, int $type): bool
    {
        return is_array($token) && $token[0] === $type;
    }

    /** @param mixed $token */
    private static function isName($token): bool
    {
        if (!is_array($token)) {
            return false;
        }
        $names = [T_STRING];
        foreach (['T_NAME_QUALIFIED', 'T_NAME_FULLY_QUALIFIED', 'T_NAME_RELATIVE'] as $name) {
            if (defined($name)) {
                $names[] = constant($name);
            }
        }
        return in_array($token[0], $names, true);
    }

    /** @param mixed $token */
    private static function isAmpersand($token): bool
    {
        if ($token === '&') {
            return true;
        }
        foreach (['T_AMPERSAND_NOT_FOLLOWED_BY_VAR_OR_VARARG', 'T_AMPERSAND_FOLLOWED_BY_VAR_OR_VARARG'] as $name) {
            if (defined($name) && self::is($token, constant($name))) {
                return $name === 'T_AMPERSAND_NOT_FOLLOWED_BY_VAR_OR_VARARG';
            }
        }
        return false;
    }

    /** @param mixed $token */
    private static function isMember($token): bool
    {
        return self::is($token, T_OBJECT_OPERATOR) || self::is($token, T_DOUBLE_COLON) || self::is($token, T_FUNCTION) || self::is($token, T_NEW) || self::is($token, T_CONST);
    }
}
