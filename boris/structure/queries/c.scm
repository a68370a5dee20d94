; Definitions in C. A declarator (@declarator) holds its name somewhere inside
; (a pointer, a function, parentheses): the code finds it.

; A function's declarator declares a function (a name, then its parameters): where
; a macro the parser does not know stands between them (void g() NOEXCEPT_MACRO {}),
; the parser takes the macro for the name and the real declarator for an error; the
; name is then the error's. A function defined inside a function's body is a misread
; preprocessor branch or macro (boris.structure.definitions), never a definition.
(function_definition
  (ERROR (function_declarator) @declarator)
  declarator: [(identifier) (field_identifier)]) @definition.function

(function_definition
  declarator: [(function_declarator) (pointer_declarator) (parenthesized_declarator)
               (attributed_declarator)] @declarator) @definition.function

(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct

(union_specifier name: (type_identifier) @name body: (_)) @definition.struct

(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

(type_definition declarator: (_) @declarator) @definition.type

(preproc_def name: (identifier) @name) @definition.constant

(preproc_function_def name: (identifier) @name) @definition.function

; Variables defined at the top (not extern ones: the code leaves them out).
(translation_unit
  (declaration declarator: (init_declarator declarator: (_) @declarator)) @definition.variable)

(translation_unit
  (declaration declarator: [(identifier) (array_declarator) (pointer_declarator)] @declarator) @definition.variable)
