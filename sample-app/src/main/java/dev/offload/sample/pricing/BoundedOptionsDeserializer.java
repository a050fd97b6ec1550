package dev.offload.sample.pricing;

import java.util.ArrayList;
import java.util.List;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;

/**
 * Binds a batch's options, at most {@link PriceRequest#MAX_OPTIONS} + 1 of them: enough
 * for {@code @Size} to refuse a batch that is too large, while the rest of the array is
 * only skipped, token by token, never bound. A 1 MB body of 349,000 empty objects costs
 * 4,097 small objects, not 349,000.
 */
final class BoundedOptionsDeserializer extends ValueDeserializer<List<OptionSpec>> {

	@Override
	@SuppressWarnings("unchecked")
	public List<OptionSpec> deserialize(JsonParser parser, DeserializationContext context) {
		if (!parser.isExpectedStartArrayToken()) {
			return (List<OptionSpec>) context.handleUnexpectedToken(List.class, parser);
		}
		List<OptionSpec> options = new ArrayList<>();
		JsonToken token;
		while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
			if (options.size() > PriceRequest.MAX_OPTIONS) {
				parser.skipChildren();
				continue;
			}
			try {
				options.add((token == JsonToken.VALUE_NULL) ? null : context.readValue(parser, OptionSpec.class));
			}
			catch (DatabindException ex) {
				throw DatabindException.wrapWithPath(context, ex,
						new JacksonException.Reference(options, options.size()));
			}
		}
		return options;
	}

}
