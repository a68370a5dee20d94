; Definitions in Rust. An impl block is no definition of its own: it qualifies what
; it holds with its type (@scope), so a method is Type.method.

(struct_item name: (type_identifier) @name) @definition.struct

(union_item name: (type_identifier) @name) @definition.struct

(enum_item name: (type_identifier) @name) @definition.enum

(trait_item name: (type_identifier) @name) @definition.trait

(type_item name: (type_identifier) @name) @definition.type

; A trait's associated type (type Output;) and an impl's (type Output = T;).
(associated_type name: (type_identifier) @name) @definition.type

(mod_item name: (identifier) @name) @definition.module

(function_item name: (identifier) @name) @definition.function

(function_signature_item name: (identifier) @name) @definition.function

(const_item name: (identifier) @name) @definition.constant

(static_item name: (identifier) @name) @definition.constant

(macro_definition name: (identifier) @name) @definition.function

(impl_item type: (_) @name) @scope
